#!/bin/bash
# final.sh NEW MAIN FROM UNTIL LOG: waits until FROM, then round.sh rounds of NEW (and MAIN's auto)
# until UNTIL (`date -d` times, UTC), appending to LOG
D=$(readlink -f $(dirname $0)); F=$(date -u -d "$3" +%s); U=$(date -u -d "$4" +%s)
while [ $(date -u +%s) -lt $F ]; do sleep 5; done
echo "start $(date -u +%T) new $1 main $2" >> $5
k=0
while [ $(date -u +%s) -lt $U ]; do
  k=$((k+1)); $D/round.sh $k $1 $2 >> $5
done
echo "end $(date -u +%T) rounds $k" >> $5
