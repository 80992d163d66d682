//! Control-flow graphs, immediate post-dominators and reconvergence points.

use proptest::prelude::*;
use warpforge_ptx::*;

fn kernel(body: &str) -> Function {
    let src = format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n{body}\n}}\n"
    );
    let m = parse(&src, "cfg.ptx").unwrap_or_else(|e| panic!("{e}"));
    m.functions.into_iter().next().unwrap()
}

fn starts(c: &Cfg) -> Vec<(u32, u32)> {
    c.blocks.iter().map(|b| (b.start, b.end)).collect()
}

#[test]
fn if_else_diamond() {
    let f = kernel(
        "setp.ne.s32 %p1, %r1, 0;\n@%p1 bra ELSE;\nadd.s32 %r2, %r1, 1;\nbra END;\n\
         ELSE:\nadd.s32 %r2, %r1, 2;\nEND:\nst.global.u32 [%rd1], %r2;\nret;",
    );
    let c = Cfg::build(&f);
    assert_eq!(starts(&c), vec![(0, 2), (2, 4), (4, 5), (5, 7)]);
    assert_eq!(c.blocks[0].succs, vec![2, 1]);
    assert_eq!(c.blocks[1].succs, vec![3]);
    assert_eq!(c.blocks[2].succs, vec![3]);
    assert!(c.blocks[3].succs.is_empty() && c.blocks[3].exits);
    assert_eq!(c.ipdom(), vec![Some(3), Some(3), Some(3), None]);
    assert_eq!(c.block_of, vec![0, 0, 1, 1, 2, 3, 3]);
    let r = reconvergence_points(&f);
    assert_eq!(r[1], 5);
    assert_eq!(r[6], 7);
}

#[test]
fn simple_loop() {
    let f = kernel("mov.u32 %r1, 0;\nLOOP:\nadd.s32 %r1, %r1, 1;\nsetp.lt.s32 %p1, %r1, 10;\n@%p1 bra LOOP;\nret;");
    let c = Cfg::build(&f);
    assert_eq!(starts(&c), vec![(0, 1), (1, 4), (4, 5)]);
    assert_eq!(c.blocks[1].succs, vec![1, 2]);
    assert_eq!(c.ipdom(), vec![Some(1), Some(2), None]);
    assert_eq!(reconvergence_points(&f)[3], 4);
}

#[test]
fn nested_if_in_loop() {
    // 0 mov; L1: 1 setp; 2 @p1 bra SKIP; 3 setp; 4 @p2 bra INNER_ELSE; 5 add; 6 bra JOIN;
    // INNER_ELSE: 7 sub; JOIN: 8 add; SKIP: 9 add; 10 setp; 11 @p3 bra L1; 12 ret
    let f = kernel(
        "mov.u32 %r1, 0;\nL1:\nsetp.eq.s32 %p1, %r1, 3;\n@%p1 bra SKIP;\nsetp.eq.s32 %p2, %r1, 5;\n\
         @%p2 bra INNER_ELSE;\nadd.s32 %r2, %r2, 1;\nbra JOIN;\nINNER_ELSE:\nsub.s32 %r2, %r2, 1;\n\
         JOIN:\nadd.s32 %r3, %r3, 1;\nSKIP:\nadd.s32 %r1, %r1, 1;\nsetp.lt.s32 %p3, %r1, 10;\n\
         @%p3 bra L1;\nret;",
    );
    let r = reconvergence_points(&f);
    assert_eq!(r[4], 8, "inner if reconverges at JOIN");
    assert_eq!(r[2], 9, "outer if reconverges at SKIP");
    assert_eq!(r[11], 12, "loop exit reconverges after the back edge");
}

#[test]
fn early_return() {
    let f = kernel("setp.eq.s32 %p1, %r1, 0;\n@%p1 ret;\nadd.s32 %r2, %r1, 1;\nret;");
    let c = Cfg::build(&f);
    assert_eq!(starts(&c), vec![(0, 2), (2, 4)]);
    assert!(c.blocks[0].exits && c.blocks[0].succs == vec![1]);
    assert_eq!(c.ipdom(), vec![None, None]);
    assert_eq!(reconvergence_points(&f), vec![4, 4, 4, 4]);
}

#[test]
fn early_return_by_branch_to_end() {
    // `@%p bra $END` where the label is at the very end of the body.
    let f = kernel("setp.eq.s32 %p1, %r1, 0;\n@%p1 bra END;\nadd.s32 %r2, %r1, 1;\nEND:");
    let c = Cfg::build(&f);
    assert!(c.blocks[0].exits);
    assert_eq!(c.blocks[0].succs, vec![1]);
    assert_eq!(c.ipdom(), vec![None, None]);
    assert_eq!(reconvergence_points(&f)[1], 3);
}

#[test]
fn break_out_of_loop() {
    let f = kernel(
        "mov.u32 %r1, 0;\nLOOP:\nsetp.eq.s32 %p1, %r2, %r1;\n@%p1 bra DONE;\nadd.s32 %r1, %r1, 1;\n\
         setp.lt.s32 %p2, %r1, 10;\n@%p2 bra LOOP;\nDONE:\nst.global.u32 [%rd1], %r1;\nret;",
    );
    let c = Cfg::build(&f);
    assert_eq!(starts(&c), vec![(0, 1), (1, 3), (3, 6), (6, 8)]);
    assert_eq!(c.ipdom(), vec![Some(1), Some(3), Some(3), None]);
    let r = reconvergence_points(&f);
    assert_eq!((r[2], r[5]), (6, 6));
}

#[test]
fn infinite_loop_has_no_postdominator_itself() {
    let f = kernel("setp.eq.s32 %p1, %r1, 0;\n@%p1 bra SPIN;\nret;\nSPIN:\nbra SPIN;");
    let c = Cfg::build(&f);
    // Every path from the branch to the exit passes the `ret` block; the spinning block itself
    // never reaches the exit.
    assert_eq!(c.ipdom(), vec![Some(1), None, None]);
    assert_eq!(reconvergence_points(&f)[1], 2);
    assert_eq!(reconvergence_points(&f)[3], 4);
}

#[test]
fn declaration_has_empty_cfg() {
    let m = parse(
        ".version 7.0\n.target sm_70\n.extern .func f();\n.entry k() { ret; }\n",
        "d",
    )
    .unwrap();
    let c = Cfg::build(m.function("f").unwrap());
    assert!(c.blocks.is_empty() && c.ipdom().is_empty());
}

/// Brute-force post-dominator sets (iterative data flow over bit sets) as the reference.
fn brute_ipdom(c: &Cfg) -> Vec<Option<u32>> {
    let n = c.blocks.len();
    let exit = n;
    let full: Vec<bool> = vec![true; n + 1];
    let mut pdom: Vec<Vec<bool>> = vec![full.clone(); n + 1];
    pdom[exit] = (0..=n).map(|i| i == exit).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..n {
            let mut succs: Vec<usize> = c.blocks[b].succs.iter().map(|&s| s as usize).collect();
            if c.blocks[b].exits {
                succs.push(exit);
            }
            let mut new = full.clone();
            for s in succs {
                for i in 0..=n {
                    new[i] &= pdom[s][i];
                }
            }
            new[b] = true;
            if new != pdom[b] {
                pdom[b] = new;
                changed = true;
            }
        }
    }
    // blocks that reach the exit (backwards search)
    let mut reach = vec![false; n + 1];
    reach[exit] = true;
    let mut grew = true;
    while grew {
        grew = false;
        for b in 0..n {
            let r = c.blocks[b].exits || c.blocks[b].succs.iter().any(|&s| reach[s as usize]);
            if r && !reach[b] {
                reach[b] = true;
                grew = true;
            }
        }
    }
    (0..n)
        .map(|b| {
            if !reach[b] {
                return None; // cannot reach the exit
            }
            // the strict post-dominator with the most post-dominators of its own is the closest
            let best = (0..=n)
                .filter(|&d| d != b && pdom[b][d])
                .max_by_key(|&d| pdom[d].iter().filter(|&&x| x).count())?;
            (best != exit).then_some(best as u32)
        })
        .collect()
}

#[derive(Debug, Clone)]
enum Stmt {
    Add,
    Bra(usize, bool),
    Ret(bool),
}

fn stmt(nlabels: usize) -> impl Strategy<Value = Stmt> {
    prop_oneof![
        4 => Just(Stmt::Add),
        3 => (0..nlabels, any::<bool>()).prop_map(|(l, g)| Stmt::Bra(l, g)),
        1 => any::<bool>().prop_map(Stmt::Ret),
    ]
}

proptest! {
    #[test]
    fn ipdom_matches_brute_force(
        prog in proptest::collection::vec(stmt(5), 1..30),
        label_pos in proptest::collection::vec(0usize..31, 5),
    ) {
        let mut body = String::new();
        for (i, s) in prog.iter().enumerate() {
            for (l, &p) in label_pos.iter().enumerate() {
                if p == i { body.push_str(&format!("L{l}:\n")); }
            }
            match s {
                Stmt::Add => body.push_str("add.s32 %r1, %r1, 1;\n"),
                Stmt::Bra(l, g) => body.push_str(&format!("{}bra L{l};\n", if *g { "@%p1 " } else { "" })),
                Stmt::Ret(g) => body.push_str(&format!("{}ret;\n", if *g { "@%p1 " } else { "" })),
            }
        }
        for (l, &p) in label_pos.iter().enumerate() {
            if p >= prog.len() { body.push_str(&format!("L{l}:\n")); }
        }
        let f = kernel(&body);
        let c = Cfg::build(&f);
        // blocks partition the instructions
        let mut next = 0;
        for (bi, b) in c.blocks.iter().enumerate() {
            prop_assert_eq!(b.start, next);
            prop_assert!(b.end > b.start);
            for i in b.start..b.end { prop_assert_eq!(c.block_of[i as usize], bi as u32); }
            next = b.end;
        }
        prop_assert_eq!(next as usize, f.insts.len());
        prop_assert_eq!(c.ipdom(), brute_ipdom(&c));
    }
}

#[test]
fn inner_scopes_shadow_only_what_they_declare() {
    // outer %r0..%r7 (from the helper) and %rd0..%rd3; the inner scope redeclares %r<2> only
    let f = kernel("{\n.reg .b32 %r<2>;\nmov.u32 %r1, 1;\nmov.u32 %r5, 2;\n}\nmov.u32 %r1, 3;");
    let name = |i: usize| match &f.insts[i].operands[0] {
        Operand::Reg(r) => (r.0, f.regs[r.0 as usize].name.clone()),
        o => panic!("{o:?}"),
    };
    let (inner_r1, n1) = name(0);
    let (outer_r5, n5) = name(1);
    let (outer_r1, n1b) = name(2);
    assert_eq!(
        (n1.as_str(), n5.as_str(), n1b.as_str()),
        ("%r1", "%r5", "%r1")
    );
    assert_ne!(inner_r1, outer_r1, "inner %r1 is a new register");
    assert!(outer_r5 < inner_r1 && outer_r1 < inner_r1);
}
