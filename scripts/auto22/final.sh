#!/bin/bash
# final.sh NEW UNTIL: bench.sh rounds of NEW until UNTIL (a `date -d` time) (out/final.log); every
# fourth round, when pp says near, one busy.sh round (out/final-busy.log)
D=$(readlink -f $(dirname $0)); E=${E:-/tmp/auto22}; O=${O:-out}
k=0; U=$(date -u -d "$2" +%s)
while [ $(date -u +%s) -lt $U ]; do
  k=$((k+1))
  $D/bench.sh 1 $1 | sed "s/^round 1 /round $k /" >> $O/final.log
  if [ $((k % 4)) = 0 ]; then
    p=$(/work/team/hi.sh $E/pp | awk '{print $2}')
    if awk "BEGIN{exit !($p < 120)}"; then echo "pp $p" >> $O/final-busy.log; $D/busy.sh 1 $1 | sed "s/^round 1 /round $k /" >> $O/final-busy.log; fi
  fi
done
echo "end $(date +%T)" >> $O/final.log
