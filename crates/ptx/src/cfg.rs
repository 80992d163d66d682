//! Control-flow graph, immediate post-dominators and SIMT reconvergence points.
//!
//! Basic blocks start at instruction 0, at every label target and after every control
//! instruction (`bra`, `brx`, `ret`, `exit`, `trap`, guarded or not). Post-dominators are computed
//! with the iterative algorithm of Cooper, Harvey and Kennedy on the reverse graph, rooted at a
//! virtual exit node that every returning block (and a fall-through past the last instruction)
//! leads to. Blocks that cannot reach the exit (infinite loops) have no post-dominator: threads
//! diverging there reconverge only at function exit, the conservative choice a stack-based SIMT
//! model (GPGPU-Sim's PDOM) makes too.

use crate::ir::{Function, OpKind, Operand};

/// A basic block: instructions `start..end`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// First instruction index.
    pub start: u32,
    /// One past the last instruction index.
    pub end: u32,
    /// Successor block indices (deduplicated; branch target first, then fall-through).
    pub succs: Vec<u32>,
    /// Whether control can leave the function from this block (`ret`/`exit`/`trap`, a branch to a
    /// label at the very end, or falling off the last instruction).
    pub exits: bool,
}

/// The control-flow graph of one function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cfg {
    /// Blocks in instruction order.
    pub blocks: Vec<Block>,
    /// Block index of every instruction.
    pub block_of: Vec<u32>,
}

fn is_terminator(k: OpKind) -> bool {
    matches!(
        k,
        OpKind::Bra | OpKind::Brx | OpKind::Ret | OpKind::Exit | OpKind::Trap
    )
}

impl Cfg {
    /// Builds the CFG of `f` (empty for a declaration without body).
    pub fn build(f: &Function) -> Cfg {
        let n = f.insts.len();
        let mut leader = vec![false; n + 1];
        if n > 0 {
            leader[0] = true;
        }
        for (i, inst) in f.insts.iter().enumerate() {
            if is_terminator(inst.op.kind) {
                leader[i + 1] = true;
            }
            for o in &inst.operands {
                if let Operand::Label(t) = o {
                    if (*t as usize) <= n {
                        leader[*t as usize] = true;
                    }
                }
            }
        }
        let mut blocks = Vec::new();
        let mut block_of = vec![0u32; n];
        let mut start = 0usize;
        for (i, &is_leader) in leader.iter().enumerate().skip(1) {
            if is_leader || i == n {
                blocks.push(Block {
                    start: start as u32,
                    end: i as u32,
                    succs: Vec::new(),
                    exits: false,
                });
                start = i;
            }
        }
        for (b, blk) in blocks.iter().enumerate() {
            for slot in &mut block_of[blk.start as usize..blk.end as usize] {
                *slot = b as u32;
            }
        }
        for blk in &mut blocks {
            let last = &f.insts[blk.end as usize - 1];
            let guarded = last.guard.is_some();
            let fall = blk.end as usize;
            let mut succs: Vec<u32> = Vec::with_capacity(2);
            let mut exits = false;
            let push_target = |t: usize, succs: &mut Vec<u32>, exits: &mut bool| {
                if t >= n {
                    *exits = true;
                } else if !succs.contains(&block_of[t]) {
                    succs.push(block_of[t]);
                }
            };
            match last.op.kind {
                OpKind::Bra | OpKind::Brx => {
                    for o in &last.operands {
                        if let Operand::Label(t) = o {
                            push_target(*t as usize, &mut succs, &mut exits);
                        }
                    }
                    if guarded {
                        push_target(fall, &mut succs, &mut exits);
                    }
                }
                OpKind::Ret | OpKind::Exit | OpKind::Trap => {
                    exits = true;
                    if guarded {
                        push_target(fall, &mut succs, &mut exits);
                    }
                }
                _ => push_target(fall, &mut succs, &mut exits),
            }
            blk.succs = succs;
            blk.exits = exits;
        }
        Cfg { blocks, block_of }
    }

    /// Immediate post-dominator of every block; `None` when it is the function exit (or the block
    /// cannot reach the exit).
    pub fn ipdom(&self) -> Vec<Option<u32>> {
        let n = self.blocks.len();
        let exit = n;
        // Forward predecessors (edges of the reverse graph), with the virtual exit node.
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        for (b, blk) in self.blocks.iter().enumerate() {
            for &s in &blk.succs {
                preds[s as usize].push(b);
            }
            if blk.exits {
                preds[exit].push(b);
            }
        }
        // Post-order of the reverse graph from the exit (iterative DFS).
        const UNSEEN: usize = usize::MAX;
        let mut po_num = vec![UNSEEN; n + 1];
        let mut order: Vec<usize> = Vec::with_capacity(n + 1);
        let mut visited = vec![false; n + 1];
        let mut stack: Vec<(usize, usize)> = vec![(exit, 0)];
        visited[exit] = true;
        while let Some(&mut (node, ref mut i)) = stack.last_mut() {
            if *i < preds[node].len() {
                let p = preds[node][*i];
                *i += 1;
                if !visited[p] {
                    visited[p] = true;
                    stack.push((p, 0));
                }
            } else {
                po_num[node] = order.len();
                order.push(node);
                stack.pop();
            }
        }
        let mut idom = vec![UNSEEN; n + 1];
        idom[exit] = exit;
        let succs_of = |b: usize| -> Vec<usize> {
            let blk = &self.blocks[b];
            let mut v: Vec<usize> = blk.succs.iter().map(|&s| s as usize).collect();
            if blk.exits {
                v.push(exit);
            }
            v
        };
        let succ_lists: Vec<Vec<usize>> = (0..n).map(succs_of).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for &b in order.iter().rev() {
                if b == exit {
                    continue;
                }
                let mut new = UNSEEN;
                for &s in &succ_lists[b] {
                    if idom[s] == UNSEEN {
                        continue;
                    }
                    new = if new == UNSEEN {
                        s
                    } else {
                        intersect(&idom, &po_num, s, new)
                    };
                }
                if new != UNSEEN && idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        (0..n)
            .map(|b| {
                if idom[b] == UNSEEN || idom[b] == exit {
                    None
                } else {
                    Some(idom[b] as u32)
                }
            })
            .collect()
    }
}

fn intersect(idom: &[usize], po: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while po[a] < po[b] {
            a = idom[a];
        }
        while po[b] < po[a] {
            b = idom[b];
        }
    }
    a
}

/// For every instruction index `i`: the instruction index where threads that diverge at `i`
/// reconverge: the first instruction of the immediate post-dominator of `i`'s block;
/// `f.insts.len()` = function exit.
pub fn reconvergence_points(f: &Function) -> Vec<u32> {
    let cfg = Cfg::build(f);
    let ipdom = cfg.ipdom();
    let exit = f.insts.len() as u32;
    cfg.block_of
        .iter()
        .map(|&b| match ipdom[b as usize] {
            Some(p) => cfg.blocks[p as usize].start,
            None => exit,
        })
        .collect()
}
