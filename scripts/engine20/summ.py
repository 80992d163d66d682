import re,sys,statistics as st
# summ.py LOG...: min / median wall and CPU of main t1, main t2, new t2 per workload, near (pp < 120 ns) and far (> 150 ns) rounds
rows={}
for f in sys.argv[1:]:
    cur=None
    for l in open(f):
        m=re.match(r'round \d+ (\w+) (\S+) load (\S+) pp one-way ([\d.]+)',l)
        if m: cur=(m.group(1),'near' if float(m.group(4))<120 else ('far' if float(m.group(4))>150 else 'mid')); continue
        m=re.match(r'\s*(main|new)\s+(\w+) t(\d) wall ([\d.]+) cpu ([\d.]+)',l)
        if m and cur:
            k=(cur[0],cur[1],m.group(1)+' t'+m.group(3))
            rows.setdefault(k,[]).append((float(m.group(4)),float(m.group(5))))
for k in sorted(rows):
    v=rows[k]; w=[x[0] for x in v]; c=[x[1] for x in v]
    print(f"{k[0]} {k[1]:4} {k[2]:8} n={len(v):2} wall min/med {min(w):.3f}/{st.median(w):.3f}  cpu min/med {min(c):.2f}/{st.median(c):.2f}")
