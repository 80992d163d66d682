//! clang-16-compiled CUDA kernels (tests/kernels/*.cu, PTX committed beside them) run on the
//! functional executor and checked against CPU computations.
#![allow(clippy::needless_range_loop)]

mod common;
use common::data;
use warpforge_core::Dim3;
use warpforge_simt::{DevPtr, Device, KernelArg, LaunchConfig, ModuleId};

fn load(dev: &mut Device, name: &str) -> ModuleId {
    let path = format!("{}/tests/kernels/{name}.ptx", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    dev.load_ptx(&text, &path).unwrap()
}

fn cfg(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig {
        grid: Dim3::x(grid),
        block: Dim3::x(block),
        shared_bytes: 0,
    }
}

fn p(d: DevPtr) -> KernelArg {
    KernelArg::Ptr(d)
}

#[test]
fn vector_add_float_and_int() {
    let mut dev = Device::new();
    let m = load(&mut dev, "vecadd");
    let n = 1000u32;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 3.0 - i as f32).collect();
    let (da, db) = (dev.alloc_copy(&a).unwrap(), dev.alloc_copy(&b).unwrap());
    let dc = dev.malloc(4 * n as u64).unwrap();
    dev.launch(
        m,
        "vecadd_f32",
        cfg(n.div_ceil(128), 128),
        &[p(da), p(db), p(dc), KernelArg::U32(n)],
    )
    .unwrap();
    let c: Vec<f32> = dev.read(dc, n as usize).unwrap();
    for i in 0..n as usize {
        assert_eq!(c[i], a[i] + b[i], "element {i}");
    }
    // The launch ran one thread instruction per active lane; a partial last CTA has inactive
    // threads that only executed the prologue.
    let st = dev.last_launch_stats();
    assert!(st.thread_insts > 8 * n as u64 && st.warp_insts > 0);

    let x: Vec<i32> = data(n as usize, 7)
        .iter()
        .map(|v| (*v % 2001) as i32 - 1000)
        .collect();
    let y0: Vec<i32> = data(n as usize, 9)
        .iter()
        .map(|v| (*v % 101) as i32)
        .collect();
    let (dx, dy) = (dev.alloc_copy(&x).unwrap(), dev.alloc_copy(&y0).unwrap());
    dev.launch(
        m,
        "saxpy_i32",
        cfg(8, 128),
        &[KernelArg::S32(-3), p(dx), p(dy), KernelArg::U32(n)],
    )
    .unwrap();
    let y: Vec<i32> = dev.read(dy, n as usize).unwrap();
    for i in 0..n as usize {
        assert_eq!(y[i], -3 * x[i] + y0[i]);
    }
}

#[test]
fn shared_memory_reduction_with_barriers() {
    let mut dev = Device::new();
    let m = load(&mut dev, "reduce");
    let n = 5000u32;
    let v: Vec<u32> = data(n as usize, 3).iter().map(|x| x % 1000).collect();
    let din = dev.alloc_copy(&v).unwrap();
    let blocks = n.div_ceil(512);
    let dout = dev.malloc(4 * blocks as u64).unwrap();
    dev.launch(
        m,
        "reduce_sum",
        cfg(blocks, 256),
        &[p(din), p(dout), KernelArg::U32(n)],
    )
    .unwrap();
    let out: Vec<u32> = dev.read(dout, blocks as usize).unwrap();
    for b in 0..blocks as usize {
        let lo = b * 512;
        let hi = (lo + 512).min(n as usize);
        assert_eq!(out[b], v[lo..hi].iter().sum::<u32>(), "block {b}");
    }
    // Dynamic shared memory.
    let dout2 = dev.malloc(4 * 4).unwrap();
    let c = LaunchConfig {
        grid: Dim3::x(4),
        block: Dim3::x(128),
        shared_bytes: 128 * 4,
    };
    dev.launch(m, "reduce_dyn", c, &[p(din), p(dout2)]).unwrap();
    let out2: Vec<u32> = dev.read(dout2, 4).unwrap();
    for b in 0..4 {
        assert_eq!(out2[b], v[b * 128..(b + 1) * 128].iter().sum::<u32>());
    }
}

fn collatz(mut x: u64) -> u32 {
    let mut s = 0;
    while x != 1 && x != 0 {
        x = if x & 1 == 1 { 3 * x + 1 } else { x >> 1 };
        s += 1;
    }
    s
}

#[test]
fn divergent_loops_reconverge() {
    let mut dev = Device::new();
    let m = load(&mut dev, "divergent");
    let n = 700u32;
    let start: Vec<u32> = (0..n).map(|i| i * 7 + 1).collect();
    let ds = dev.alloc_copy(&start).unwrap();
    let dout = dev.malloc(4 * n as u64).unwrap();
    dev.launch(
        m,
        "collatz",
        cfg(n.div_ceil(64), 64),
        &[p(ds), p(dout), KernelArg::U32(n)],
    )
    .unwrap();
    let out: Vec<u32> = dev.read(dout, n as usize).unwrap();
    for i in 0..n as usize {
        assert_eq!(out[i], collatz(start[i] as u64), "start {}", start[i]);
    }
    // Divergence means fewer thread instructions than warp instructions × 32.
    let st = dev.last_launch_stats();
    assert!(st.thread_insts < st.warp_insts * 32);

    let input: Vec<i32> = data(n as usize, 11).iter().map(|v| *v as i32).collect();
    let din = dev.alloc_copy(&input).unwrap();
    dev.launch(
        m,
        "classify",
        cfg(n.div_ceil(96), 96),
        &[p(din), p(dout), KernelArg::U32(n)],
    )
    .unwrap();
    let out: Vec<i32> = dev.read(dout, n as usize).unwrap();
    for i in 0..n as usize {
        let v = input[i];
        let mut r = 0i32;
        for k in 0..(v & 15) {
            if k == 7 && v < 0 {
                break;
            }
            if (v.wrapping_add(k)) % 3 == 0 {
                r += 2;
            } else {
                r -= 1;
            }
        }
        assert_eq!(out[i], r, "input {v}");
    }
}

#[test]
fn atomics_histogram_and_mix() {
    let mut dev = Device::new();
    let m = load(&mut dev, "atomics");
    let n = 3000u32;
    let v = data(n as usize, 5);
    let dv = dev.alloc_copy(&v).unwrap();
    let dh = dev.malloc(64 * 4).unwrap();
    dev.launch(
        m,
        "histogram",
        cfg(5, 128),
        &[p(dv), KernelArg::U32(n), p(dh)],
    )
    .unwrap();
    let h: Vec<u32> = dev.read(dh, 64).unwrap();
    let mut want = [0u32; 64];
    for x in &v {
        want[(*x & 63) as usize] += 1;
    }
    assert_eq!(h, want.to_vec());

    let vals: Vec<i32> = v.iter().map(|x| (*x % 10_000) as i32 - 5000).collect();
    let dvals = dev.alloc_copy(&vals).unwrap();
    let init: Vec<i32> = vec![i32::MAX, i32::MIN, 0, 0, 0, 0];
    let dout = dev.alloc_copy(&init).unwrap();
    let k = 1000u32;
    dev.launch(
        m,
        "minmax",
        cfg(k.div_ceil(256), 256),
        &[p(dvals), KernelArg::U32(k), p(dout)],
    )
    .unwrap();
    let out: Vec<i32> = dev.read(dout, 6).unwrap();
    assert_eq!(out[0], *vals[..k as usize].iter().min().unwrap());
    assert_eq!(out[1], *vals[..k as usize].iter().max().unwrap());
    assert_eq!(out[2], k as i32);
    assert_eq!(out[3], 2 * k as i32);
    assert_eq!(out[4] as u32, u32::MAX);
    assert_eq!(f32::from_bits(out[5] as u32), 0.5 * k as f32);
}

#[test]
fn warp_shuffles_and_ballot() {
    let mut dev = Device::new();
    let m = load(&mut dev, "shuffle");
    let n = 256usize;
    let v: Vec<i32> = data(n, 13)
        .iter()
        .map(|x| (*x % 1000) as i32 - 500)
        .collect();
    let dv = dev.alloc_copy(&v).unwrap();
    let dout = dev.malloc(4 * n as u64).unwrap();
    dev.launch(m, "warp_sum", cfg(2, 128), &[p(dv), p(dout)])
        .unwrap();
    let out: Vec<i32> = dev.read(dout, n / 32).unwrap();
    for w in 0..n / 32 {
        assert_eq!(out[w], v[w * 32..(w + 1) * 32].iter().sum::<i32>());
    }
    let f: Vec<f32> = v.iter().map(|x| *x as f32 * 0.25).collect();
    let df = dev.alloc_copy(&f).unwrap();
    dev.launch(m, "warp_xor_max", cfg(2, 128), &[p(df), p(dout)])
        .unwrap();
    let out: Vec<f32> = dev.read(dout, n).unwrap();
    for i in 0..n {
        let w = i / 32;
        let mx = f[w * 32..(w + 1) * 32]
            .iter()
            .cloned()
            .fold(f32::MIN, f32::max);
        assert_eq!(out[i], mx);
    }
    dev.launch(m, "ballot_count", cfg(2, 128), &[p(dv), p(dout)])
        .unwrap();
    let out: Vec<u32> = dev.read(dout, n / 32).unwrap();
    for w in 0..n / 32 {
        let mut b = 0u32;
        for l in 0..32 {
            if v[w * 32 + l] > 0 {
                b |= 1 << l;
            }
        }
        assert_eq!(out[w], b);
    }
}

#[test]
fn func_call_with_divergent_call_site() {
    let mut dev = Device::new();
    let m = load(&mut dev, "funccall");
    let n = 300u32;
    let v: Vec<i32> = data(n as usize, 17)
        .iter()
        .map(|x| (*x % 200) as i32 - 100)
        .collect();
    let dv = dev.alloc_copy(&v).unwrap();
    let dout = dev.malloc(4 * n as u64).unwrap();
    let dfout = dev.malloc(4 * n as u64).unwrap();
    dev.launch(
        m,
        "call_poly",
        cfg(n.div_ceil(64), 64),
        &[p(dv), p(dout), p(dfout), KernelArg::U32(n)],
    )
    .unwrap();
    let out: Vec<i32> = dev.read(dout, n as usize).unwrap();
    let fout: Vec<f32> = dev.read(dfout, n as usize).unwrap();
    for i in 0..n as usize {
        let x = v[i];
        let want = if x & 1 != 0 {
            (0..(x & 7)).map(|k| x * k - 3).sum::<i32>()
        } else {
            x
        };
        assert_eq!(out[i], want, "input {x}");
        assert_eq!(fout[i], x as f32 * 0.5 + 1.0, "input {x}");
    }
}

#[test]
fn local_memory_array() {
    let mut dev = Device::new();
    let m = load(&mut dev, "localmem");
    let n = 200u32;
    let idx = data(n as usize, 19);
    let di = dev.alloc_copy(&idx).unwrap();
    let dout = dev.malloc(4 * n as u64).unwrap();
    dev.launch(
        m,
        "local_array",
        cfg(n.div_ceil(64), 64),
        &[p(di), p(dout), KernelArg::U32(n)],
    )
    .unwrap();
    let out: Vec<u32> = dev.read(dout, n as usize).unwrap();
    for i in 0..n as usize {
        let arr: Vec<u32> = (0..16u32).map(|k| k * k + i as u32).collect();
        let want: u32 = (0..8u32)
            .map(|k| arr[((idx[i] + k * 5) & 15) as usize])
            .sum();
        assert_eq!(out[i], want);
    }
    let info = dev.kernel_info(m, "local_array", cfg(1, 64)).unwrap();
    assert!(
        info.local_bytes >= 64,
        "local array of 16 u32 lives in local memory"
    );
}

/// Hand-written PTX (the nvcc form of a call through a function pointer): CTA 0 calls `twice`,
/// CTA 1 calls `plus1` through the same `call (r), %rd, (a), proto;` site; the `dive` kernel
/// picks the target per lane, which the executor refuses with a fault.
const INDIRECT_PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.func (.param .b32 func_retval0) twice(.param .b32 twice_param_0)
{
    .reg .b32 %r<3>;
    ld.param.u32 %r1, [twice_param_0];
    shl.b32 %r2, %r1, 1;
    st.param.b32 [func_retval0+0], %r2;
    ret;
}
.func (.param .b32 func_retval0) plus1(.param .b32 plus1_param_0)
{
    .reg .b32 %r<3>;
    ld.param.u32 %r1, [plus1_param_0];
    add.s32 %r2, %r1, 1;
    st.param.b32 [func_retval0+0], %r2;
    ret;
}
.visible .entry pick(.param .u64 out, .param .u32 by_lane)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r6, [by_lane];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r7, %ntid.x;
    mad.lo.s32 %r3, %r2, %r7, %r1;
    setp.ne.u32 %p2, %r6, 0;
    selp.u32 %r5, %r1, %r2, %p2;
    and.b32 %r5, %r5, 1;
    setp.eq.u32 %p1, %r5, 0;
    mov.u64 %rd2, twice;
    mov.u64 %rd3, plus1;
    selp.b64 %rd4, %rd2, %rd3, %p1;
    {
    .param .b32 param0;
    st.param.b32 [param0+0], %r3;
    .param .b32 retval0;
    prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
    call (retval0), %rd4, (param0), prototype_0;
    ld.param.b32 %r4, [retval0+0];
    }
    mul.wide.u32 %rd5, %r3, 4;
    add.s64 %rd6, %rd1, %rd5;
    st.global.u32 [%rd6], %r4;
    ret;
}
"#;

#[test]
fn indirect_call_through_function_pointer() {
    let mut dev = Device::new();
    let m = dev.load_ptx(INDIRECT_PTX, "indirect.ptx").unwrap();
    dev.validate_all(m).unwrap();
    let dout = dev.malloc(4 * 64).unwrap();
    dev.launch(m, "pick", cfg(2, 32), &[p(dout), KernelArg::U32(0)])
        .unwrap();
    let out: Vec<u32> = dev.read(dout, 64).unwrap();
    for (i, &v) in out.iter().enumerate() {
        let i = i as u32;
        let want = if i < 32 { 2 * i } else { i + 1 };
        assert_eq!(v, want, "thread {i}");
    }
    let err = dev
        .launch(m, "pick", cfg(1, 32), &[p(dout), KernelArg::U32(1)])
        .unwrap_err()
        .to_string();
    assert!(err.contains("different targets"), "{err}");
}
