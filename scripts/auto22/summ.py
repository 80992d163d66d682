import re,sys,statistics as st
# summ.py LOG...: per mode (idle / busy), workload and placement tag (near: both `pp` of the block
# < 120 ns, far: both > 150 ns, else mixed): n, min / median wall and median CPU-s of NEW on 1, 2 and
# auto threads and MAIN on auto; auto / better (better = the lower median of 1 and 2 threads), auto / 1
# thread; and the new auto runs' team report summed (periods absent / starved / present, probes
# suspect, unanswered) with their median CPU share
rows={}; team={}
tag=lambda v: 'near' if v<120 else ('far' if v>150 else 'mid')
for f in sys.argv[1:]:
    cur=None; runs=[]
    for l in open(f):
        m=re.match(r'round \d+ (\w+) (\w+) \S+ load \S+ pp one-way ([\d.]+)',l)
        if m:
            cur=(m.group(1),m.group(2),float(m.group(3))); runs=[]; continue
        m=re.match(r'\s*pp-after one-way ([\d.]+)',l)
        if m and cur:
            wl,mode,pre=cur; post=float(m.group(1))
            t=tag(pre) if tag(pre)==tag(post) else 'mixed'
            for k,w,c,line in runs:
                rows.setdefault((mode,wl,t,k),[]).append((w,c))
                if k=='new auto':
                    d=dict(re.findall(r' (per_abs|starved|per_pres|suspect|unans|share|team|alone) (\d+)',line))
                    team.setdefault((mode,wl,t),[]).append({x:int(y) for x,y in d.items()})
            cur=None; continue
        m=re.match(r'\s*(main|new)\s+(\w+) t(\w+) wall ([\d.]+) cpu ([\d.]+)',l)
        if m and cur:
            runs.append((m.group(1)+' '+m.group(3),float(m.group(4)),float(m.group(5)),l))
keys=['new 1','new 2','new auto','main auto']
for g in sorted({k[:3] for k in rows}):
    med={}
    for k in keys:
        v=rows.get(g+(k,))
        if not v: continue
        w=[x[0] for x in v]; c=[x[1] for x in v]; med[k]=st.median(w)
        print(f"{g[0]:4} {g[1]} {g[2]:5} {k:9} n={len(v):2} wall min/med {min(w):.3f}/{st.median(w):.3f}  cpu med {st.median(c):.2f}")
    if all(k in med for k in keys[:3]):
        b=min(med['new 1'],med['new 2'])
        ma=f", main auto / 1 thread {med['main auto']/med['new 1']:.3f}" if 'main auto' in med else ''
        print(f"     auto / better {med['new auto']/b:.3f}, auto / 1 thread {med['new auto']/med['new 1']:.3f}{ma}")
    t=team.get(g)
    if t:
        s=lambda x: sum(d.get(x,0) for d in t)
        sh=[d['share'] for d in t if d.get('share')]
        print(f"     new auto: windows team/alone {s('team')}/{s('alone')}, periods absent {s('per_abs')} (starved {s('starved')}) present {s('per_pres')}, probes unanswered {s('unans')} (suspect {s('suspect')}), median CPU share {st.median(sh) if sh else 0} permille")
