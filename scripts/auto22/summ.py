import re,sys,statistics as st
# summ.py LOG...: min / median wall and CPU-s of 1, 2, auto (new) and main 2 threads per workload,
# rounds tagged by pp before and after (near: both < 120 ns, far: both > 150 ns, else mixed) and by
# the auto run's own probes (all near / all far / mixed)
rows={}; auto_tags={}
for f in sys.argv[1:]:
    cur=None; runs=[]
    def flush():
        if cur is None: return
        wl,pre=cur
        post=post_pp[0]
        tag=lambda v: 'near' if v<120 else ('far' if v>150 else 'mid')
        t=tag(pre) if tag(pre)==tag(post) else 'mixed'
        for k,w,c,extra in runs:
            rows.setdefault((wl,t,k),[]).append((w,c))
            if k=='new auto' and extra:
                n,fa=extra
                at='near' if fa==0 and n>0 else ('far' if n==0 and fa>0 else 'mixed')
                auto_tags.setdefault((wl,t),[]).append(at)
    post_pp=[0.0]
    for l in open(f):
        m=re.match(r'round \d+ (\w+) \S+ load \S+ pp one-way ([\d.]+)',l)
        if m:
            cur=(m.group(1),float(m.group(2))); runs=[]; continue
        m=re.match(r'\s*pp-after one-way ([\d.]+)',l)
        if m:
            post_pp[0]=float(m.group(1)); flush(); cur=None; continue
        m=re.match(r'\s*(main|new)\s+(\w+) t(\w+) wall ([\d.]+) cpu ([\d.]+).*?(?:near (\d+) far (\d+))?',l)
        if m and cur:
            extra=(int(m.group(6)),int(m.group(7))) if m.group(6) else None
            runs.append((m.group(1)+' '+m.group(3),float(m.group(4)),float(m.group(5)),extra))
for k in sorted(rows):
    v=rows[k]; w=[x[0] for x in v]; c=[x[1] for x in v]
    print(f"{k[0]} {k[1]:5} {k[2]:9} n={len(v):2} wall min/med {min(w):.3f}/{st.median(w):.3f}  cpu min/med {min(c):.2f}/{st.median(c):.2f}")
for k in sorted(auto_tags):
    v=auto_tags[k]; print(k, 'auto probes:', {t:v.count(t) for t in set(v)})
