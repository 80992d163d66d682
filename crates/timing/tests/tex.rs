//! The texture cache (`tex.*`, GPGPU-Sim's `L1T`, `-gpgpu_tex_cache:l1`) on a hand-written
//! PTX kernel of texture fetches: reuse hits, a cold stream misses every line, results are
//! those of the functional model, and with `tex.enabled = false` a texture fetch costs exactly
//! what the same global load costs (the behaviour before the texture cache existed).

use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg, LaunchConfig, TexBinding, TexFormat};
use warpforge_timing::{GpuConfig, KernelStats, TimingRunner};

/// `fetch(out, iters, stride)`: thread `g` (global index) sums, over `i < iters`, element
/// `g + i * stride` of texture `tx` (4 x u32 per element, 16 bytes) and writes the sum to
/// `out[g]`. `%rd4` is the element's address as a global load would compute it, ready long
/// before the fetch; the `ld` variant uses it in place of the fetch, so both kernels issue the
/// same instructions with the same dependences.
const FETCH: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.global .texref tx;
.visible .entry fetch(.param .u64 out, .param .u64 base, .param .u32 iters, .param .u32 stride)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [base];
  ld.param.u32 %r1, [iters];
  ld.param.u32 %r2, [stride];
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mad.lo.s32 %r6, %r4, %r5, %r3;
  mov.u32 %r7, 0;
  mov.u32 %r8, 0;
  mov.u32 %r9, %r6;
  mul.wide.u32 %rd3, %r9, 16;
  add.s64 %rd4, %rd2, %rd3;
LOOP:
  setp.ge.u32 %p1, %r7, %r1;
  @%p1 bra DONE;
  FETCH_HERE
  add.u32 %r9, %r9, %r2;
  mul.wide.u32 %rd3, %r9, 16;
  add.s64 %rd4, %rd2, %rd3;
  add.u32 %r7, %r7, 1;
  add.u32 %r8, %r8, %r10;
  bra LOOP;
DONE:
  mul.wide.u32 %rd5, %r6, 4;
  add.s64 %rd6, %rd1, %rd5;
  st.global.u32 [%rd6], %r8;
  ret;
}
"#;

const TEX: &str = "tex.1d.v4.u32.s32 {%r10, %r11, %r12, %r13}, [tx, {%r9}];";
const LD: &str = "ld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd4];";

struct Run {
    stats: KernelStats,
    out: Vec<u32>,
    expect: Vec<u32>,
}

/// One launch of `ctas` x 32 threads, `iters` fetches each at element stride `stride`, on `cfg`;
/// `fetch` is [`TEX`] or [`LD`].
fn run(cfg: GpuConfig, fetch: &str, ctas: u32, iters: u32, stride: u32) -> Run {
    let threads = ctas * 32;
    let elems = threads + iters.saturating_sub(1) * stride;
    let data: Vec<u32> = (0..elems)
        .flat_map(|e| [e.wrapping_mul(2_654_435_761) >> 8, 1, 2, 3])
        .collect();
    let expect: Vec<u32> = (0..threads)
        .map(|g| {
            (0..iters).fold(0u32, |a, i| {
                a.wrapping_add(data[4 * (g + i * stride) as usize])
            })
        })
        .collect();
    let mut dev = Device::new();
    dev.set_runner(Box::new(TimingRunner::new(cfg, 1)));
    let m = dev
        .load_ptx(&FETCH.replace("FETCH_HERE", fetch), "fetch.ptx")
        .unwrap();
    let buf = dev.alloc_copy(&data).unwrap();
    let out = dev.malloc(u64::from(threads) * 4).unwrap();
    dev.bind_texture(
        "tx",
        TexBinding {
            ptr: buf.0,
            format: TexFormat::U32,
            channels: 4,
            width: elems,
            height: 1,
            pitch: u64::from(elems) * 16,
        },
    )
    .unwrap();
    let shape = LaunchConfig {
        grid: Dim3::x(ctas),
        block: Dim3::x(32),
        shared_bytes: 0,
    };
    let args = [
        KernelArg::Ptr(out),
        KernelArg::Ptr(buf),
        KernelArg::U32(iters),
        KernelArg::U32(stride),
    ];
    dev.launch(m, "fetch", shape, &args).unwrap();
    let out: Vec<u32> = dev.read(out, threads as usize).unwrap();
    let mut r = dev.take_runner().unwrap();
    let t = r.as_any_mut().downcast_mut::<TimingRunner>().unwrap();
    Run {
        stats: t.kernels()[0].clone(),
        out,
        expect,
    }
}

fn gtx480(tex: bool) -> GpuConfig {
    let mut c = GpuConfig::preset("gtx480").unwrap();
    c.tex.enabled = tex;
    c
}

/// One warp fetching the same 32 elements (512 bytes, four 128-byte lines) 16 times: the
/// first pass misses each line once, every later fetch hits in the texture cache, and the
/// L1D sees none of it.
#[test]
fn reused_texels_hit_in_the_texture_cache() {
    let cfg = gtx480(true);
    let line = u64::from(cfg.tex.line_bytes);
    let r = run(cfg.clone(), TEX, 1, 16, 0);
    assert_eq!(r.out, r.expect);
    let t = &r.stats.raw.tex_cache;
    let lines = 32 * 16 / line;
    assert_eq!(t.accesses, 16 * lines, "{t:?}");
    assert_eq!(t.misses, lines, "{t:?}");
    assert_eq!(t.hits, 15 * lines, "{t:?}");
    assert_eq!(r.stats.raw.l1d.loads, 0, "texture fetches bypass the L1D");
    // The same kernel with global loads misses once per line in the L1D instead.
    let g = run(cfg, LD, 1, 16, 0);
    assert_eq!(g.stats.raw.tex_cache.accesses, 0);
    let l1 = &g.stats.raw.l1d;
    assert_eq!(
        (l1.loads, l1.loads - l1.load_hits),
        (16 * lines, lines),
        "{l1:?}"
    );
}

/// A cold stream: each of 4 warps (one CTA each) fetches 4 new lines per iteration, none
/// touched twice: every access misses and goes to the L2.
#[test]
fn a_cold_stream_misses_every_line() {
    let cfg = gtx480(true);
    let line = u64::from(cfg.tex.line_bytes);
    // Stride 4 CTAs x 32 threads: iteration i of every warp touches a new 512-byte span.
    let r = run(cfg, TEX, 4, 24, 128);
    assert_eq!(r.out, r.expect);
    let t = &r.stats.raw.tex_cache;
    let lines = 4 * 24 * 32 * 16 / line;
    assert_eq!(t.accesses, lines, "{t:?}");
    assert_eq!(t.misses, lines, "{t:?}");
    assert_eq!(t.hits, 0);
    assert!(
        r.stats.raw.l2.accesses >= lines,
        "{} L2 accesses",
        r.stats.raw.l2.accesses
    );
}

/// Reuse pays: the 16-pass reuse kernel runs much faster than a 16-pass cold stream of the
/// same fetches with the texture cache, and switching the cache off makes the reuse kernel
/// cost what the global-load kernel costs, cycle for cycle (texture fetches use the L1D).
#[test]
fn disabled_texture_cache_gives_the_l1d_path_back_exactly() {
    let off = run(gtx480(false), TEX, 2, 16, 0);
    let ld = run(gtx480(false), LD, 2, 16, 0);
    assert_eq!(off.out, off.expect);
    assert_eq!(off.stats.raw.tex_cache.accesses, 0);
    assert_eq!(off.stats.cycles, ld.stats.cycles);
    assert_eq!(off.stats.raw.l1d, ld.stats.raw.l1d);
    assert_eq!(off.stats.raw.l2, ld.stats.raw.l2);
    // A different texture geometry changes nothing while the cache is off.
    let mut other = gtx480(false);
    other.tex.sets = 1;
    other.tex.latency = 400;
    assert_eq!(run(other, TEX, 2, 16, 0).stats.cycles, off.stats.cycles);
    // On: hits cost `tex.latency`; a longer one shows in the reuse kernel's cycles.
    let on = run(gtx480(true), TEX, 2, 16, 0);
    let mut slow = gtx480(true);
    slow.tex.latency += 100;
    let slow = run(slow, TEX, 2, 16, 0);
    assert!(
        slow.stats.cycles >= on.stats.cycles + 15 * 100,
        "{} vs {}",
        slow.stats.cycles,
        on.stats.cycles
    );
    let cold = run(gtx480(true), TEX, 2, 16, 64);
    assert!(
        cold.stats.cycles > on.stats.cycles,
        "cold {} reuse {}",
        cold.stats.cycles,
        on.stats.cycles
    );
}
