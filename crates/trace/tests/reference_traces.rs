//! The two real Accel-Sim traces in `shared/reference/accelsim-traces/`, read end to end, and the
//! reader's errors on broken copies of them.

use std::path::{Path, PathBuf};
use warpforge_core::{DynInst, MemSpace, OpClass, WarpSource, WarpStep};
use warpforge_trace::{count, KernelList, TraceSource};

fn refdir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/reference/accelsim-traces")
}

fn vectoradd() -> PathBuf {
    refdir().join("vectoradd-100-32-trace/kernel-1.traceg")
}

#[test]
fn instruction_counts_match_the_accelsim_log() {
    // accelsim_log.txt: gpgpu_n_tot_w_icount = 344, gpu_sim_insn = 10516; stats.csv: 4416.
    let c = count(&vectoradd(), None).unwrap();
    assert_eq!((c.ctas, c.warp_insts, c.thread_insts), (1, 344, 10516));
    assert_eq!(c.mem_insts, 12);
    let m = count(
        &refdir().join("matrixmul-32-32-trace/kernel-1.traceg"),
        None,
    )
    .unwrap();
    assert_eq!((m.ctas, m.warp_insts), (1, 4416));
}

#[test]
fn kernelslist_is_read() {
    let l = KernelList::open(&refdir().join("vectoradd-100-32-trace")).unwrap();
    assert_eq!(l.commands.len(), 4);
    assert_eq!(l.kernels().count(), 1);
}

fn drain(src: &mut TraceSource, cta: u32) -> Vec<Vec<DynInst>> {
    let n = src.start_cta(cta, 0).unwrap();
    let mut out = Vec::new();
    for w in 0..n {
        let mut v = Vec::new();
        let mut i = DynInst::default();
        while src.next(cta, w, &mut i).unwrap() == WarpStep::Inst {
            v.push(i);
        }
        out.push(v);
    }
    src.finish_cta(cta);
    out
}

#[test]
fn vectoradd_streams_as_a_warp_source() {
    let mut src = TraceSource::open(&vectoradd(), None, None).unwrap();
    assert_eq!(src.header().binary_version, 61);
    assert_eq!(src.kernel().name, "_Z6vecAddIfEvPT_S1_S1_i");
    assert_eq!(src.kernel().regs_per_thread, 8);
    let warps = drain(&mut src, 0);
    assert_eq!(warps.len(), 32);
    assert_eq!(warps[0].len(), 23);
    assert_eq!(warps[4].len(), 9);
    assert!(warps.iter().all(|w| w.last().unwrap().warp_exits));
    assert_eq!(warps[0].iter().filter(|i| i.warp_exits).count(), 1);
    // `0098 ffffffff 1 R4 LDG.E.CG 1 R4 4 1 0x7f2b2d500000 4` (base + stride).
    let ldg = warps[0][14];
    assert_eq!(ldg.pc, 0x98);
    assert_eq!(ldg.class, OpClass::Load);
    assert_eq!((ldg.dsts(), ldg.srcs()), (&[4u16][..], &[4u16][..]));
    let m = ldg.mem.unwrap();
    assert_eq!(
        (m.space, m.bytes_per_lane, m.is_store),
        (MemSpace::Global, 4, false)
    );
    for lane in 0..32 {
        assert_eq!(m.addrs[lane], 0x7f2b2d500000 + 4 * lane as u64);
    }
    let stg = warps[3][20];
    assert_eq!(stg.class, OpClass::Store);
    assert!(stg.mem.unwrap().is_store);
    // Warp 3 covers elements 96..99 only: its loads are masked to 4 lanes.
    assert_eq!(warps[3][14].active_mask, 0xf);
    assert_eq!(warps[0][8].class, OpClass::Exit);
    assert_eq!(warps[0][8].active_mask, 0);
    // The CTA is gone after finish_cta; the trace has no CTA 1.
    assert!(src
        .start_cta(1, 0)
        .unwrap_err()
        .to_string()
        .contains("ends without thread block"));
}

#[test]
fn matrixmul_shared_accesses_and_barriers() {
    let mut src = TraceSource::open(
        &refdir().join("matrixmul-32-32-trace/kernel-1.traceg"),
        None,
        None,
    )
    .unwrap();
    let warps = drain(&mut src, 0);
    let all: Vec<&DynInst> = warps.iter().flatten().collect();
    assert_eq!(all.len(), 4416);
    assert_eq!(
        all.iter().filter(|i| i.class == OpClass::Barrier).count(),
        64
    );
    let lds128: Vec<_> = all
        .iter()
        .filter(|i| {
            i.mem
                .is_some_and(|m| m.space == MemSpace::Shared && m.bytes_per_lane == 16)
        })
        .collect();
    assert_eq!(lds128.len(), 256);
    // `LDS.U.128 1 R2 16 1 0x0 0`: stride 0, every lane reads address 0.
    assert!(lds128[0].mem.unwrap().addrs.iter().all(|&a| a == 0));
    assert_eq!(src.max_buffered(), 1);
}

fn broken(edit: impl Fn(&str) -> String) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(vectoradd()).unwrap();
    let p = dir.path().join("kernel-1.traceg");
    std::fs::write(&p, edit(&text)).unwrap();
    (dir, p)
}

fn count_err(p: &Path) -> String {
    count(p, None).unwrap_err().to_string()
}

#[test]
fn truncated_trace_is_a_clear_error() {
    let (_d, p) = broken(|t| t[..=t[..t.len() / 2].rfind('\n').unwrap()].to_string());
    let e = count_err(&p);
    assert!(
        e.contains("kernel-1.traceg:") && e.contains("truncated"),
        "{e}"
    );
    let (_d, p) = broken(|t| t.replace("#END_TB", ""));
    assert!(count_err(&p).contains("truncated"));
}

#[test]
fn malformed_lines_name_file_and_line() {
    let (_d, p) = broken(|t| t.replacen("0098 ffffffff 1 R4", "0098 fffzffff 1 R4", 1));
    let e = count_err(&p);
    assert!(
        e.contains("kernel-1.traceg:39:") && e.contains("active mask"),
        "{e}"
    );
    let (_d, p) = broken(|t| t.replacen("insts = 23", "insts = 24", 1));
    let e = count_err(&p);
    assert!(e.contains("declares insts = 24 but has 23"), "{e}");
    let (_d, p) = broken(|t| t.replacen("4 1 0x7f2b2d500000 4", "4 7 0x7f2b2d500000 4", 1));
    assert!(count_err(&p).contains("unknown address mode 7"));
    let (_d, p) = broken(|t| t.replacen("-grid dim = (1,1,1)", "-grid dim = (1,x,1)", 1));
    assert!(count_err(&p).contains("kernel-1.traceg:3:"));
    let (_d, p) = broken(|t| {
        t.replacen(
            "-accelsim tracer version = 4",
            "-accelsim tracer version = 2",
            1,
        )
    });
    assert!(count_err(&p).contains("tracer version 2 is not supported"));
    let (_d, p) = broken(|t| t.replacen("warp = 5\n", "warp = 40\n", 1));
    assert!(count_err(&p).contains("warp 40 does not exist"));
}

#[test]
fn unknown_opcode_names_opcode_file_line_and_table() {
    let (_d, p) = broken(|t| t.replacen(" FADD ", " FROB.X ", 1));
    let e = count_err(&p);
    assert!(e.contains("unknown opcode `FROB.X`"), "{e}");
    assert!(e.contains("kernel-1.traceg:44:"), "{e}");
    assert!(e.contains("pascal.toml") && e.contains("FROB = "), "{e}");
    // ...and an extra table fixes it.
    let extra = warpforge_trace::OpcodeTable::parse(
        "arch = \"mine\"\nbinary_versions = []\n[opcodes]\nFROB = \"FpAlu\"\n",
        "mine.toml",
    )
    .unwrap();
    assert_eq!(count(&p, Some(&extra)).unwrap().warp_insts, 344);
}

#[test]
fn xz_compressed_trace_reads_the_same() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read(vectoradd()).unwrap();
    let f = std::fs::File::create(dir.path().join("kernel-1.traceg.xz")).unwrap();
    let mut enc = xz2::write::XzEncoder::new(f, 6);
    enc.write_all(&text).unwrap();
    enc.finish().unwrap();
    std::fs::write(dir.path().join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
    let l = KernelList::open(&dir.path().join("kernelslist.g")).unwrap();
    let k = l.kernels().next().unwrap().to_path_buf();
    assert!(k.to_string_lossy().ends_with(".xz"));
    let c = count(&k, None).unwrap();
    assert_eq!((c.warp_insts, c.thread_insts), (344, 10516));
}

#[test]
fn version5_lineinfo_list_all_addresses_and_immediates() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("kernel-1.traceg");
    let text = "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n\
        -shmem = 0\n-nregs = 16\n-binary version = 86\n-cuda stream id = 0\n\
        -shmem base_addr = 0x00007f0000000000\n-local mem base_addr = 0x00007f0002000000\n\
        -nvbit version = 1.5.5\n-accelsim tracer version = 5\n-enable lineinfo = 1\n\n\
        #traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses]\n\n\
        #BEGIN_TB\n\nthread block = 1,0,0\n\nwarp = 1\ninsts = 3\n\
        12 0010 00000005 1 R2 LDG.E.64.SYS 1 UR4 8 0 0x7f1000000010 0x7f1000000400 \n\
        13 0020 80000001 0 LD.E 2 R2 P1 4 2 0x7f0000000100 -16 7\n\
        14 0030 ffffffff 0 EXIT 0 0 \n\
        warp = 0\ninsts = 1\n15 0030 ffffffff 0 EXIT 0 0 \n#END_TB\n";
    std::fs::write(&p, text).unwrap();
    let mut src = TraceSource::open(&p, None, None).unwrap();
    assert_eq!(src.header().tracer_version, 5);
    let w = drain(&mut src, 1);
    assert_eq!(w.len(), 2);
    let ldg = w[1][0];
    let m = ldg.mem.unwrap();
    assert_eq!(
        (m.bytes_per_lane, m.addrs[0], m.addrs[2]),
        (8, 0x7f1000000010, 0x7f1000000400)
    );
    assert_eq!(ldg.srcs(), &[0xE004]);
    // Generic LD in the shared window; mode 2 with a trailing immediate (7).
    let ld = w[1][1];
    let m = ld.mem.unwrap();
    assert_eq!(m.space, MemSpace::Shared);
    assert_eq!(
        (m.addrs[0], m.addrs[31]),
        (0x7f0000000100, 0x7f0000000100 - 16)
    );
    assert_eq!(ld.srcs(), &[2, 0xF001]);
    assert!(w[1][2].warp_exits && w[0][0].warp_exits);
    // Thread block 0 is not in the file.
    assert!(src.start_cta(0, 0).is_err());
}
