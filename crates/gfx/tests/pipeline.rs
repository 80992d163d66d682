//! Closed-loop behaviour of the pipeline model (document 004 sections 2.1-2.6): memory latency and
//! bandwidth feed back into frame time, each bottleneck marks its own unit's streams critical, and
//! runs are deterministic.

use warpforge_gfx::mem::{FixedLatency, Ideal};
use warpforge_gfx::pipeline::memif::Marking;
use warpforge_gfx::sim::{self, RunOpts};
use warpforge_gfx::stream::{Stream, Unit};
use warpforge_gfx::title::{self, Profile, Title};

fn opts() -> RunOpts {
    RunOpts {
        res_div: 32,
        warmup: 1,
        frames: 1,
        ..RunOpts::default()
    }
}

/// A light custom title (fast to simulate) with the given profile changes: UT2004's flavour at
/// a depth complexity of 4.9 (independent of the calibrated value).
fn custom(f: impl FnOnce(&mut Profile)) -> Title {
    let mut t = *title::by_name("UT2004").unwrap();
    t.doc_fps = 10.0;
    t.profile.layers = 4.9;
    f(&mut t.profile);
    t
}

#[test]
fn higher_memory_latency_or_less_bandwidth_lowers_fps() {
    let mut t = *title::by_name("NFS").unwrap();
    t.profile.layers = 9.5;
    let t = &t;
    let fps = |lat, bw| sim::run(t, &opts(), &mut FixedLatency::new(lat, bw)).fps;
    let fast = fps(50, 1.0);
    let slow = fps(400, 1.0);
    let narrow = fps(50, 0.1);
    assert!(fast > slow * 1.05, "latency: {fast} vs {slow}");
    assert!(fast > narrow * 1.05, "bandwidth: {fast} vs {narrow}");
}

fn critical_share(t: &Title, s: Stream, res_div: u32) -> f64 {
    let mut o = opts();
    o.res_div = res_div;
    o.cfg.target_fps = 1e9; // always below target: marking follows the bottleneck vector only
    let r = sim::run(t, &o, &mut FixedLatency::new(200, 0.3));
    let n = r.counts.reads[s as usize] + r.counts.writes[s as usize];
    assert!(n > 0, "{s:?} has accesses");
    r.counts.critical[s as usize] as f64 / n as f64
}

#[test]
fn texture_bound_frames_mark_texture_and_blend_bound_frames_mark_colour() {
    // Texture-heavy, cheap blending-free colour: the shader cores wait for texels (SH
    // bottleneck), so texture accesses are critical far more often than colour ones.
    let tex = custom(|p| {
        p.tex_fetches = 8;
        p.tex_step = 2.0;
        p.tex_mb = 4096.0; // far beyond the texture cache at this scale
        p.blend = 0.0;
        p.z_reject = 0.0;
        p.shadow = 0.0;
    });
    let (t_tex, t_col) = (
        critical_share(&tex, Stream::Texture, 32),
        critical_share(&tex, Stream::Colour, 32),
    );
    assert!(
        t_tex > 0.5 && t_tex > t_col + 0.3,
        "texture {t_tex} colour {t_col}"
    );
    // No textures, every draw blending, trivial shaders: CW waits for colour reads (at a
    // resolution whose colour buffer does not fit the ROP caches).
    let blend = custom(|p| {
        p.tex_fetches = 0;
        p.blend = 1.0;
        p.z_reject = 0.0;
        p.shader_cycles = 1;
        p.shadow = 0.0;
    });
    let b_col = critical_share(&blend, Stream::Colour, 8);
    assert!(b_col > 0.5, "colour {b_col}");
}

#[test]
fn above_target_frames_mark_nothing() {
    let t = custom(|_| {});
    let mut o = opts();
    o.cfg.target_fps = 1e-3; // every prediction is above target
    o.warmup = 2;
    let r = sim::run(&t, &o, &mut FixedLatency::new(200, 0.3));
    assert!(r.counts.total() > 0);
    assert_eq!(r.counts.total_critical(), 0);
}

#[test]
fn a_held_gate_makes_the_marking_independent_of_the_predicted_fps() {
    // Claim 3's ideal-LLC runs hold the frame-rate gate at the baseline's side of the target:
    // the critical bits then follow the bottleneck vector alone, whatever FPS the estimator
    // predicts (a faster frame must not turn the idealised set over).
    let t = custom(|_| {});
    let run = |target: f64, held: Option<bool>| {
        let mut o = opts();
        o.warmup = 2;
        o.cfg.target_fps = target;
        o.cfg.held_gate = held;
        sim::run(&t, &o, &mut FixedLatency::new(200, 0.3)).counts
    };
    let above = run(1e-3, Some(true));
    let below = run(1e9, Some(true));
    assert!(above.total_critical() > 0);
    assert_eq!(above, below);
    assert_eq!(run(1e-3, None).total_critical(), 0, "the estimator's gate");
    assert_eq!(run(1e9, Some(false)).total_critical(), 0);
}

#[test]
fn ideal_critical_accesses_speed_up_a_memory_bound_frame() {
    let t = custom(|p| {
        p.tex_fetches = 6;
        p.tex_step = 2.0;
        p.tex_mb = 4096.0;
    });
    let mut o = opts();
    o.cfg.target_fps = 1e9;
    let base = sim::run(&t, &o, &mut FixedLatency::new(200, 0.2)).fps;
    let mut m = FixedLatency::new(200, 0.2);
    m.ideal = Some(Ideal::Critical);
    let ideal = sim::run(&t, &o, &mut m).fps;
    assert!(ideal > base * 1.05, "{ideal} vs {base}");
}

#[test]
fn marking_rules_and_determinism() {
    let t = custom(|_| {});
    let run = |m: Marking| {
        let mut o = opts();
        o.cfg.marking = m;
        sim::run(&t, &o, &mut FixedLatency::new(150, 0.4))
    };
    let a = run(Marking::Algorithm);
    let b = run(Marking::Algorithm);
    assert_eq!(a.frames, b.frames, "same inputs, same statistics");
    let all = run(Marking::Always);
    assert_eq!(all.counts.total_critical(), all.counts.total());
    let none = run(Marking::Never);
    assert_eq!(none.counts.total_critical(), 0);
    let half = run(Marking::Random([0.5; 8]));
    let f = half.counts.total_critical() as f64 / half.counts.total() as f64;
    assert!((0.4..0.6).contains(&f), "{f}");
    // The stream-to-unit mapping of section 2.6.
    assert_eq!(Stream::Texture.unit(), Unit::Sh);
    assert_eq!(Stream::Vertex.unit(), Unit::Fe);
    assert_eq!(Stream::Colour.unit(), Unit::Cw);
}

#[test]
fn algorithm_1_runs_once_per_period() {
    // Section 2.5 "run periodically" with the period of section 10.4 item 1 (1K GPU cycles by
    // default): the walk runs once every `period` cycles, whatever the period.
    let t = custom(|_| {});
    for period in [500u64, 1000, 4000] {
        let mut o = opts();
        o.cfg.period = period;
        let r = sim::run(&t, &o, &mut FixedLatency::new(150, 0.4));
        let cycles: u64 = r.frames.iter().map(|f| f.cycles).sum();
        let runs = r.walk().runs as i64;
        let expect = (cycles / period) as i64;
        assert!(
            (runs - expect).abs() <= r.frames.len() as i64,
            "period {period}: {runs} runs in {cycles} cycles"
        );
        assert!(runs > 0);
    }
}

#[test]
fn one_shader_context_per_core_hides_less_texture_latency() {
    // `Config::contexts` (session 25): a core's quads in flight are bounded by its contexts, so
    // with long texture latency and ample bandwidth a shader-heavy title (HDR2's profile: 32
    // cycles and 4 texture fetches a quad) runs slower with one context per core than with the
    // default 16. Every run of Algorithm 1 either stops at one unit or reaches FE.
    let t = title::by_name("HDR2").unwrap();
    let run = |n: usize| {
        let mut o = opts();
        o.cfg.contexts = n;
        sim::run(t, &o, &mut FixedLatency::new(1000, 8.0))
    };
    let (one, default) = (run(1), run(16));
    assert!(
        default.fps > one.fps * 1.05,
        "1 context {} FPS, 16 contexts {} FPS",
        one.fps,
        default.fps
    );
    for (r, n) in [(&one, 1u64), (&default, 16)] {
        let w = r.walk();
        assert_eq!(
            w.stopped.iter().sum::<u64>() + w.examined[Unit::Fe as usize],
            w.runs
        );
        let c = r.sh_contexts();
        assert!(c.samples > 0 && c.probes > 0);
        assert!(c.resident <= c.samples * n && c.full <= c.samples);
    }
    let full = |r: &sim::RunResult| {
        let c = r.sh_contexts();
        c.full as f64 / c.samples as f64
    };
    assert!(
        full(&one) > full(&default),
        "a single context is full more often: {} vs {}",
        full(&one),
        full(&default)
    );
}

#[test]
fn unit_states_partition_the_samples_and_an_empty_input_is_starved() {
    // Session 25 (shfeed): each unit's instance-samples are busy, starved, blocked or waiting
    // for its own reads, one each; a unit that never gets input (BT of a title without blits)
    // is starved in every sample and completes nothing; every probe with the SH queue empty has
    // exactly one upstream cause, and a cause's unit can be flagged only in that cause's probes.
    let run = |blit: f64| {
        let t = custom(|p| {
            p.blit = blit;
            p.post = if blit > 0.0 { 1 } else { 0 };
        });
        sim::run(&t, &opts(), &mut FixedLatency::new(200, 0.5))
    };
    for (blit, r) in [(0.0, run(0.0)), (0.5, run(0.5))] {
        let s = r.unit_states();
        assert!(s.probes > 0 && s.cycles > 0);
        let instances = [1u64, 16, 64, 16, 1];
        for (u, n) in instances.iter().enumerate() {
            let parts = s.busy[u] + s.starved[u] + s.blocked[u] + s.wait_read[u];
            assert_eq!(
                parts, s.samples[u],
                "unit {u}: states partition the samples"
            );
            assert_eq!(s.samples[u], s.probes * n, "unit {u}");
            assert!(s.done[u] <= s.peak[u] + 1e-9, "unit {u} above its peak");
        }
        for u in [Unit::Fe, Unit::Zs, Unit::Sh, Unit::Cw] {
            assert!(s.done[u as usize] > 0.0, "{u:?} completes quads");
        }
        assert_eq!(s.cause.iter().sum::<u64>(), s.sh_starved);
        assert_eq!(s.joint.iter().flatten().sum::<u64>(), s.sh_starved);
        assert!(s.sh_starved <= s.probes);
        for c in 0..8 {
            assert!(s.cause_flagged[c] <= s.cause[c]);
        }
        assert_eq!(s.fe_when_starved.samples, s.sh_starved);
        assert_eq!(s.zs_when_starved.samples, 16 * s.sh_starved);
        let bt = Unit::Bt as usize;
        if blit == 0.0 {
            assert_eq!(
                s.starved[bt], s.samples[bt],
                "no blits: BT's input is empty"
            );
            assert_eq!(s.done[bt], 0.0);
            assert_eq!(s.cause[6], 0, "no blit to wait behind");
        } else {
            assert!(s.starved[bt] < s.samples[bt], "BT works on its blits");
            assert!(s.done[bt] > 0.0);
        }
    }
}

#[test]
fn fe_look_ahead_samples_partition_its_window_and_stop_at_the_draw_end() {
    // Session 25 (fefeed): each sample's look-ahead window (at most 4 x lookahead vertex
    // blocks from the head's) is present, pending or missing block by block; the blocks FE can
    // run through are present ones; a window is cut short only by its draw's end, so a title
    // whose draws have fewer vertex blocks than the window is cut in every sample; with a
    // 200-cycle memory FE's head waits at some samples.
    let run = |vertex: f64| {
        let t = custom(|p| p.vertex = vertex);
        sim::run(&t, &opts(), &mut FixedLatency::new(200, 0.5))
    };
    for vertex in [0.5, 40.0] {
        let r = run(vertex);
        let s = r.unit_states();
        let a = s.fe_ahead;
        assert!(a.samples > 0 && a.samples <= s.probes, "vertex {vertex}");
        assert_eq!(a.present + a.pending + a.missing, a.window);
        assert!(a.lead <= a.present);
        assert!(a.window <= 32 * a.samples && a.window <= a.draw_blocks);
        assert!(a.window_cut <= a.samples);
        assert!(a.head_missing > 0 && a.head_missing <= a.samples);
        assert!(a.head_missing_draw_start <= a.head_missing);
        assert!(a.head_missing_next_queued <= a.head_missing);
        if vertex < 1.0 {
            // A block or two per draw: every window ends at its draw's end.
            assert!(a.draw_blocks < 32 * a.samples);
            assert_eq!(a.window_cut, a.samples, "short draws cut every window");
        }
    }
}

#[test]
fn fe_look_ahead_across_draws_removes_head_misses_at_draw_start() {
    // Session 25 (xdraw), `Config::fe_cross_draw`: with draws shorter than FE's 32-block
    // window, a look-ahead that continues into the queued draws' vertex blocks finds the next
    // draw's first blocks present or in flight, so FE's head misses at a draw's start become
    // fewer than with the window stopped at the draw's end (the default).
    let t = custom(|p| p.vertex = 0.5);
    let run = |cross: bool| {
        let mut o = opts();
        o.cfg.fe_cross_draw = cross;
        sim::run(&t, &o, &mut FixedLatency::new(200, 0.5))
    };
    let (off, on) = (run(false), run(true));
    let (a, b) = (off.unit_states().fe_ahead, on.unit_states().fe_ahead);
    assert!(
        a.head_missing_draw_start > 0,
        "short draws open with a miss"
    );
    assert!(
        b.head_missing_draw_start < a.head_missing_draw_start,
        "head misses at draw start: across draws {}, stopped at the draw's end {}",
        b.head_missing_draw_start,
        a.head_missing_draw_start
    );
}

#[test]
fn fe_look_ahead_across_draws_spares_the_head_and_completes_the_frame() {
    // Session 25 (xdraw): every vertex and index buffer starts on the same cache sets, so with
    // several short draws queued the cross-draw fills must spare the window ahead of them
    // (`MemIf::ensure_window`); with plain requests L4D's first frame stood still for good.
    let t = title::by_name("L4D").unwrap();
    let mut o = opts();
    o.cfg.fe_cross_draw = true;
    o.max_frame_cycles = 5_000_000;
    let r = sim::run(t, &o, &mut FixedLatency::new(200, 0.5));
    assert!(r.complete, "L4D with the look-ahead across draws completes");
    assert!(r.fps > 0.0);
}
