//! Bad input and functional faults produce clear errors naming the place.

mod common;
use common::{module, try_run};
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg, LaunchConfig, SimtError};

fn cfg(grid: u32, block: u32, shared: u32) -> LaunchConfig {
    LaunchConfig {
        grid: Dim3::x(grid),
        block: Dim3::x(block),
        shared_bytes: shared,
    }
}

#[test]
fn malformed_ptx_names_file_line_and_column() {
    let mut dev = Device::new();
    let text = module("", "  add.s32 %r1, %r2;\n  frobnicate.u32 %r1, %r2;");
    let e = dev.load_ptx(&text, "bad.ptx").unwrap_err();
    assert!(matches!(e, SimtError::Parse(_)));
    let msg = e.to_string();
    assert!(msg.starts_with("bad.ptx:"), "{msg}");
    let parts: Vec<&str> = msg.splitn(4, ':').collect();
    assert!(
        parts[1].parse::<u32>().is_ok() && parts[2].parse::<u32>().is_ok(),
        "{msg}"
    );
}

#[test]
fn launch_validation() {
    let mut dev = Device::new();
    let m = dev.load_ptx(&module("", ""), "k.ptx").unwrap();
    let out = dev.malloc(1 << 16).unwrap();
    let args = [KernelArg::Ptr(out), KernelArg::Ptr(out)];
    let e = dev
        .launch(m, "nope", cfg(1, 32, 0), &args)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no kernel `nope`") && e.contains("available kernels: t"),
        "{e}"
    );
    let e = dev
        .launch(m, "t", cfg(1, 32, 0), &args[..1])
        .unwrap_err()
        .to_string();
    assert!(e.contains("takes 2 arguments, 1 given"), "{e}");
    let e = dev
        .launch(
            m,
            "t",
            cfg(1, 32, 0),
            &[KernelArg::Ptr(out), KernelArg::U32(1)],
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("argument 1") && e.contains("8 bytes") && e.contains("u32"),
        "{e}"
    );
    let e = dev
        .launch(m, "t", cfg(1, 2048, 0), &args)
        .unwrap_err()
        .to_string();
    assert!(e.contains("2048 threads"), "{e}");
    let e = dev
        .launch(m, "t", cfg(1, 32, 1 << 20), &args)
        .unwrap_err()
        .to_string();
    assert!(e.contains("shared memory"), "{e}");
    let e = dev
        .launch(m, "t", cfg(0, 32, 0), &args)
        .unwrap_err()
        .to_string();
    assert!(e.contains("empty launch"), "{e}");
    // A valid launch still works after the rejected ones.
    dev.launch(m, "t", cfg(1, 32, 0), &args).unwrap();
}

#[test]
fn out_of_bounds_access_names_kernel_cta_thread_pc_and_line() {
    // Thread 37 of CTA 1 reads far past the end of `out`.
    let body = r#"
  setp.eq.u32 %p1, %r63, 101;
  @!%p1 bra OK;
  ld.global.u32 %r1, [%rd63+1000000];
OK:
"#;
    let e = try_run("", body, 2, 64, &[])
        .err()
        .expect("faults")
        .to_string();
    assert!(e.contains("kernel `t`"), "{e}");
    assert!(e.contains("CTA (1,0,0)"), "{e}");
    assert!(
        e.contains("thread (37,0,0)") && e.contains("warp 1, lane 5"),
        "{e}"
    );
    assert!(e.contains("pc 0x"), "{e}");
    assert!(e.contains("outside every allocation"), "{e}");
    // The PTX line of the load: the template has 22 lines before the body.
    let line = module("", body)
        .lines()
        .position(|l| l.contains("ld.global.u32 %r1"))
        .unwrap()
        + 1;
    assert!(e.starts_with(&format!("corpus.ptx:{line}:")), "{e}");

    // Shared memory out of range.
    let e = try_run(
        ".shared .align 4 .b32 s[4];",
        "  ld.shared.u32 %r1, [s+16];",
        1,
        1,
        &[],
    )
    .err()
    .expect("faults")
    .to_string();
    assert!(
        e.contains("beyond the CTA's 16 bytes of shared memory"),
        "{e}"
    );
    // Host copies are checked too.
    let mut dev = Device::new();
    let p = dev.malloc(16).unwrap();
    assert!(dev.copy_htod(p, &[0u32; 5]).is_err());
    assert!(dev.read::<u8>(p.offset(16), 1).is_err());
}

#[test]
fn deadlocks_are_reported() {
    // Warp 1 exits; warp 0 waits for 64 threads at barrier 1: can never complete.
    let body = r#"
  setp.ge.u32 %p1, %r60, 32;
  @%p1 bra END;
  bar.sync 1, 64;
END:
"#;
    let e = try_run("", body, 1, 64, &[])
        .err()
        .expect("deadlocks")
        .to_string();
    assert!(
        e.contains("deadlock") && e.contains("kernel `t`") && e.contains("CTA (0,0,0)"),
        "{e}"
    );
    assert!(
        e.contains("barrier 1") && e.contains("32 of 64 threads"),
        "{e}"
    );

    // A barrier reached by only part of a warp (divergent bar.sync).
    let body = r#"
  setp.lt.u32 %p1, %r60, 16;
  @%p1 bra SKIP;
  bar.sync 0;
SKIP:
"#;
    let e = try_run("", body, 1, 32, &[])
        .err()
        .expect("deadlocks")
        .to_string();
    assert!(e.contains("deadlock: divergent barrier"), "{e}");
    assert!(e.contains("pc 0x"), "{e}");

    // Exited warps are not waited for by a barrier without a count.
    let body = r#"
  setp.ge.u32 %p1, %r60, 32;
  @%p1 bra END;
  bar.sync 0;
  st.global.u32 [%rd63], 9;
END:
"#;
    let r = try_run("", body, 1, 64, &[]).unwrap();
    assert_eq!(r.out[0][0], 9);
}

#[test]
fn trap_and_unsupported_instructions() {
    let e = try_run("", "  trap;", 1, 1, &[]).err().unwrap().to_string();
    assert!(
        e.contains("trap executed") && e.contains("kernel `t`"),
        "{e}"
    );
    let mut dev = Device::new();
    let text = module("", "  brx.idx %r1, TBL;\nTBL:");
    if let Err(e) = dev.load_ptx(&text, "brx.ptx") {
        let msg = e.to_string();
        assert!(msg.starts_with("brx.ptx:"), "{msg}");
    }
}

#[test]
fn instruction_limit_stops_livelocks() {
    let text = module("", "SPIN:\n  ld.volatile.global.u32 %r1, [%rd61];\n  setp.eq.u32 %p1, %r1, 0;\n  @%p1 bra SPIN;");
    let mut dev = Device::new();
    dev.set_instruction_limit(Some(100_000));
    let m = dev.load_ptx(&text, "spin.ptx").unwrap();
    let out = dev.malloc(64 * 128).unwrap();
    let flag = dev.malloc(8).unwrap();
    let args = [KernelArg::Ptr(out), KernelArg::Ptr(flag)];
    let e = dev
        .launch(m, "t", cfg(2, 64, 0), &args)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("warp-instruction limit") && e.contains("CTA (0,0,0)"),
        "{e}"
    );
    assert!(e.contains("warp 0 at pc 0x"), "{e}");
    // With the flag set the same kernel finishes within the limit.
    dev.copy_htod(flag, &[1u32]).unwrap();
    dev.launch(m, "t", cfg(2, 64, 0), &args).unwrap();
    assert!(dev.last_launch_stats().warp_insts < 100_000);
}

/// The endless-kernel guard: a loop without stores stops after the stall bound with a report
/// naming kernel, CTA, warp and pc; a loop that keeps storing (progress) or a long loop that
/// ends is not stopped; `None` lifts the guard.
#[test]
fn stall_guard_stops_endless_kernels_only() {
    // CTA 1 spins forever (`L: bra L`); CTA 0 exits.
    let spin = module(
        "",
        "  setp.eq.u32 %p1, %r61, 0;\n  @%p1 bra DONE;\nL:\n  bra L;\nDONE:",
    );
    let mut dev = Device::new();
    dev.set_stall_limit(Some(50_000));
    let m = dev.load_ptx(&spin, "spin.ptx").unwrap();
    let out = dev.malloc(64 * 128).unwrap();
    let args = [KernelArg::Ptr(out), KernelArg::Ptr(out)];
    let e = dev
        .launch(m, "t", cfg(2, 64, 0), &args)
        .unwrap_err()
        .to_string();
    for want in [
        "spin.ptx:",
        "kernel `t`",
        "CTA (1,0,0)",
        "no forward progress",
        "warp 0 at pc 0x",
        "warp 1 at pc",
    ] {
        assert!(e.contains(want), "`{want}` missing: {e}");
    }
    // The bound is the bound: stopped after at least 50_000 and well under 2x that.
    let n: u64 = e
        .split(" in ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap();
    assert!((50_000..60_000).contains(&n), "{n}: {e}");

    // 200_000 iterations of a loop that stores every iteration: progress, not stopped.
    let store_loop = module(
        "",
        "  mov.u32 %r1, 0;\nL:\n  st.global.u32 [%rd63], %r1;\n  add.u32 %r1, %r1, 1;\n  setp.lt.u32 %p1, %r1, 200000;\n  @%p1 bra L;",
    );
    let m = dev.load_ptx(&store_loop, "store.ptx").unwrap();
    dev.launch(m, "t", cfg(1, 32, 0), &args).unwrap();
    assert!(dev.last_launch_stats().warp_insts > 600_000);

    // A finite loop without stores longer than the bound trips it; lifting the guard lets it end.
    let long_loop = module(
        "",
        "  mov.u32 %r1, 0;\nL:\n  add.u32 %r1, %r1, 1;\n  setp.lt.u32 %p1, %r1, 100000;\n  @%p1 bra L;\n  st.global.u32 [%rd63], %r1;",
    );
    let m = dev.load_ptx(&long_loop, "long.ptx").unwrap();
    assert!(dev.launch(m, "t", cfg(1, 32, 0), &args).is_err());
    dev.set_stall_limit(None);
    dev.launch(m, "t", cfg(1, 32, 0), &args).unwrap();
    let v: Vec<u32> = dev.read(out, 1).unwrap();
    assert_eq!(v[0], 100_000);
}
