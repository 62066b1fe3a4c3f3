//! `scripts/generation.py`'s tasks on this machine and on Dask clusters on 127.0.0.1, run
//! through `scripts/test_generation_cluster.py` with the binary the tests built, into scratch
//! stores: the driver killed and resumed, a worker killed mid-chunk (the same files, sha256,
//! as without the cluster), the keep-rule match as game pairs, bad results refused, a TLS
//! cluster. Skipped, with a message, where Dask's `distributed` is not installed (`.ci/run`
//! installs it).

use crate::common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::thread;
use std::time::Duration;

/// Longest the script may take (about a minute on two loaded cores).
const DEADLINE: Duration = Duration::from_secs(400);

#[test]
fn generation_runs_the_same_on_threads_and_on_a_dask_cluster() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/test_generation_cluster.py"
    );
    let mut child = match Command::new("python3")
        .args([script, env!("CARGO_BIN_EXE_cutoff")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            eprintln!("skipped: python3 does not start: {e}");
            return;
        }
    };
    let (mut out, mut err) = (child.stdout.take(), child.stderr.take());
    let readers = [
        thread::spawn(move || read_all(out.as_mut())),
        thread::spawn(move || read_all(err.as_mut())),
    ];
    let status = common::wait_or_kill(&mut child, DEADLINE);
    let [stdout, stderr] = readers.map(|r| r.join().expect("read the script's output"));
    let status = status.unwrap_or_else(|| panic!("no result within {DEADLINE:?}:\n{stdout}"));
    if stdout.starts_with("SKIPPED") {
        eprintln!("skipped: {stdout}");
        return;
    }
    assert!(status.success(), "the script failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("ok: the TLS cluster"), "{stdout}");
    println!("{stdout}");
}

/// Everything a pipe gives until it closes.
fn read_all(pipe: Option<&mut impl Read>) -> String {
    let mut text = String::new();
    if let Some(pipe) = pipe {
        let _ = pipe.read_to_string(&mut text);
    }
    text
}
