//! The recorder's output read back by the reader gives the same `DynInst`s (every class, space,
//! width, mask shape and address pattern), and streaming holds only the CTAs in flight.

use warpforge_core::{
    Dim3, DynInst, InstObserver, KernelInfo, MemAccess, MemSpace, OpClass, WarpSource, WarpStep,
};
use warpforge_trace::{KernelList, TraceRecorder, TraceSource};

const CLASSES: [OpClass; 18] = [
    OpClass::IntAlu,
    OpClass::IntMul,
    OpClass::IntDiv,
    OpClass::FpAlu,
    OpClass::FpDiv,
    OpClass::Dp,
    OpClass::Sfu,
    OpClass::Conv,
    OpClass::Load,
    OpClass::Store,
    OpClass::Atomic,
    OpClass::Tex,
    OpClass::Branch,
    OpClass::Barrier,
    OpClass::Fence,
    OpClass::WarpCollective,
    OpClass::Exit,
    OpClass::Nop,
];
const SPACES: [MemSpace; 6] = [
    MemSpace::Global,
    MemSpace::Local,
    MemSpace::Shared,
    MemSpace::Const,
    MemSpace::Param,
    MemSpace::Tex,
];

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn random_inst(g: &mut Lcg, idx: u32) -> DynInst {
    let mut i = DynInst {
        pc: u64::from(idx) * 8,
        static_idx: idx,
        class: CLASSES[(g.next() % 18) as usize],
        ..Default::default()
    };
    i.active_mask = match g.next() % 4 {
        0 => u32::MAX,
        1 => 0x0000_ffff,
        2 => g.next() as u32,
        _ => 1 << (g.next() % 32),
    };
    i.n_dst = (g.next() % 3) as u8;
    for d in 0..i.n_dst as usize {
        i.dst[d] = (g.next() % 300) as u16;
    }
    i.n_src = (g.next() % 5) as u8;
    for s in 0..i.n_src as usize {
        i.src[s] = match g.next() % 5 {
            0 => 0xF000 + (g.next() % 8) as u16,
            _ => (g.next() % 2000) as u16,
        };
    }
    if i.class.is_memory() {
        let bytes = [1u8, 2, 4, 8, 12, 16][(g.next() % 6) as usize];
        let base = g.next() << 8;
        let mut addrs = [0u64; 32];
        let pattern = g.next() % 3;
        let stride = (g.next() % 9) * 4;
        for (lane, a) in addrs.iter_mut().enumerate() {
            if i.active_mask >> lane & 1 == 1 {
                *a = match pattern {
                    0 => base + lane as u64 * stride,
                    1 => base.wrapping_sub(lane as u64 * 64),
                    _ => g.next() << 2,
                };
            }
        }
        let is_atomic = i.class == OpClass::Atomic;
        i.mem = Some(MemAccess {
            space: if i.class == OpClass::Tex {
                MemSpace::Tex
            } else {
                SPACES[(g.next() % 6) as usize]
            },
            bytes_per_lane: bytes,
            is_store: i.class == OpClass::Store || (is_atomic && g.next() & 1 == 0),
            is_atomic,
            addrs,
        });
    }
    if i.class == OpClass::Barrier {
        i.barrier_id = (g.next() % 16) as u8;
        i.barrier_threads = if g.next() & 1 == 0 { 0 } else { 64 };
    }
    i
}

#[test]
fn recorded_instructions_read_back_identically() {
    let dir = tempfile::tempdir().unwrap();
    let info = KernelInfo {
        name: "_Z4testPf".into(),
        grid: Dim3::new(3, 2, 2),
        block: Dim3::new(40, 2, 1),
        regs_per_thread: 21,
        shared_bytes: 1024,
        local_bytes: 16,
    };
    let warps = info.warps_per_cta();
    let mut g = Lcg(7);
    let mut expected: Vec<Vec<Vec<DynInst>>> = Vec::new();
    let mut rec = TraceRecorder::new(dir.path()).unwrap();
    rec.on_launch(&info);
    // CTAs observed out of order and interleaved, as a timing-driven run does.
    let order = [5u32, 0, 11, 1, 2, 3, 4, 6, 7, 8, 9, 10];
    expected.resize_with(12, Vec::new);
    for &cta in &order {
        let mut per_warp = Vec::new();
        for w in 0..warps {
            let n = 1 + g.next() % 40;
            let mut v: Vec<DynInst> = (0..n as u32).map(|k| random_inst(&mut g, k)).collect();
            v.last_mut().unwrap().warp_exits = true;
            for inst in &v {
                rec.on_inst(cta, w, inst);
            }
            per_warp.push(v);
        }
        expected[cta as usize] = per_warp;
    }
    rec.on_launch_end(&info);
    rec.finish().unwrap();

    let kl = KernelList::open(dir.path()).unwrap();
    let k = kl.kernels().next().unwrap();
    let mut src = TraceSource::open(k, None, None).unwrap();
    assert_eq!(src.kernel(), &info);
    for cta in 0..12u32 {
        assert_eq!(src.start_cta(cta, 0).unwrap(), warps);
        for w in 0..warps {
            let mut got = Vec::new();
            let mut i = DynInst::default();
            while src.next(cta, w, &mut i).unwrap() == WarpStep::Inst {
                got.push(i);
            }
            let want = &expected[cta as usize][w as usize];
            assert_eq!(got.len(), want.len());
            for (a, b) in got.iter().zip(want) {
                // Inactive lanes carry no address in the format.
                let mut b = *b;
                if let Some(m) = b.mem.as_mut() {
                    for lane in 0..32 {
                        if b.active_mask >> lane & 1 == 0 {
                            m.addrs[lane] = 0;
                        }
                    }
                }
                assert_eq!(*a, b, "CTA {cta} warp {w}");
            }
        }
        src.finish_cta(cta);
    }
    // In-order streaming holds one CTA at a time.
    assert_eq!(src.max_buffered(), 1);
}

#[test]
fn out_of_order_start_buffers_only_what_it_skips() {
    let dir = tempfile::tempdir().unwrap();
    let info = KernelInfo {
        name: "k".into(),
        grid: Dim3::x(10),
        block: Dim3::x(32),
        ..Default::default()
    };
    let mut rec = TraceRecorder::new(dir.path()).unwrap();
    rec.on_launch(&info);
    for cta in 0..10 {
        let i = DynInst {
            active_mask: u32::MAX,
            class: OpClass::Exit,
            warp_exits: true,
            ..Default::default()
        };
        rec.on_inst(cta, 0, &i);
    }
    rec.on_launch_end(&info);
    let kl = KernelList::open(dir.path()).unwrap();
    let mut src = TraceSource::open(kl.kernels().next().unwrap(), None, None).unwrap();
    src.start_cta(3, 0).unwrap();
    assert_eq!(src.max_buffered(), 4);
    for c in [0, 1, 2, 3] {
        src.finish_cta(c);
    }
    for c in 4..10 {
        src.start_cta(c, 0).unwrap();
        src.finish_cta(c);
    }
    assert_eq!(src.max_buffered(), 4);
}
