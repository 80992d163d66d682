//! `warpforge list`: the built-in workloads with their document abbreviation, suite of origin,
//! the documents' sets they belong to, their kernels and their inputs at every size.

use anyhow::Context;
use warpforge_workloads::{find, registry, Check, Size, Workload};

/// Arguments of `warpforge list`.
#[derive(clap::Args)]
pub struct Args {
    /// Print only the names, one per line (for scripts).
    #[arg(long)]
    pub names: bool,
}

/// The documents' abbreviation of a workload (Lee 2017 Tables 3.2, 4.2, 5.3): the name in upper
/// case, except the two Streamcluster inputs, which the documents call SC_small and SC_mid.
pub fn abbreviation(name: &str) -> String {
    match name {
        "sc" => "SC_small".into(),
        "sc_mid" => "SC_mid".into(),
        n => n.to_uppercase(),
    }
}

/// The registered workload `name`, or an error listing the valid names.
pub fn find_workload(name: &str) -> anyhow::Result<&'static dyn Workload> {
    find(name).with_context(|| {
        let names: Vec<&str> = registry().iter().map(|w| w.info().name).collect();
        format!("unknown workload `{name}` (known: {})", names.join(", "))
    })
}

/// Parses a `--size` value (clap value parser).
pub fn parse_size(s: &str) -> Result<Size, String> {
    s.parse()
}

/// `"passed"` or `"failed"`, as written in JSON outputs.
pub fn check_word(c: &Check) -> &'static str {
    match c {
        Check::Passed => "passed",
        Check::Failed(_) => "failed",
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let all = registry();
    if args.names {
        for w in &all {
            println!("{}", w.info().name);
        }
        return Ok(());
    }
    println!("{} workloads (sizes: tiny = tests, small = timing runs in minutes, paper = the documents' inputs)\n", all.len());
    for w in all {
        print_one(w);
    }
    Ok(())
}

fn print_one(w: &dyn Workload) {
    let i = w.info();
    println!(
        "{:<8} {:<9} {:<10} {}  [{}]",
        i.name,
        abbreviation(i.name),
        i.suite,
        i.application,
        i.sets
    );
    println!("         kernels:   {}", i.kernels.join(", "));
    println!("         behaviour: {}", i.behaviour);
    for s in Size::ALL {
        let input = w.input(s);
        if !input.is_empty() {
            println!("         {:<6} {}", s.name(), input);
        }
    }
    println!();
}
