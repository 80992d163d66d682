//! Prints the static launch description (`KernelInfo`: estimated registers, shared and local
//! bytes) of every kernel of a PTX file: `cargo run -p warpforge-simt --example kernel_info FILE`.

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: kernel_info FILE.ptx");
    let text = std::fs::read_to_string(&path).expect("readable file");
    let mut dev = warpforge_simt::Device::new();
    let m = match dev.load_ptx(&text, &path) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let cfg = warpforge_simt::LaunchConfig {
        grid: warpforge_core::Dim3::x(1),
        block: warpforge_core::Dim3::x(256),
        shared_bytes: 0,
    };
    for k in dev.kernel_names(m) {
        let i = dev.kernel_info(m, &k, cfg).expect("kernel exists");
        println!(
            "{k}: {} regs/thread (estimate), {} B shared, {} B local",
            i.regs_per_thread, i.shared_bytes, i.local_bytes
        );
    }
}
