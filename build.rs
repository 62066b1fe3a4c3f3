//! Chooses the chess net built into the binary: `nets/default.nnue`, or the file the
//! environment variable `CUTOFF_EVALFILE` names (the root `Makefile`'s `EVALFILE=`, as
//! OpenBench builds a test of a net). A variable that names no readable, non-empty file
//! fails the build: it never falls back to the default silently. The net itself is checked
//! by the `Makefile` after the build, with the engine's own loader.

use std::env;
use std::path::PathBuf;

const EVALFILE_VAR: &str = "CUTOFF_EVALFILE";

fn main() {
    println!("cargo:rerun-if-env-changed={EVALFILE_VAR}");
    let net = match env::var_os(EVALFILE_VAR).filter(|value| !value.is_empty()) {
        Some(value) => chosen_net(PathBuf::from(value)),
        None => {
            let root = env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
            PathBuf::from(root).join("nets").join("default.nnue")
        }
    };
    println!("cargo:rerun-if-changed={}", net.display());
    println!("cargo:rustc-env=CUTOFF_CHESS_NET={}", net.display());
}

/// The absolute path of the net `path` names; exits the build with a message when it is
/// not a readable, non-empty file.
fn chosen_net(path: PathBuf) -> PathBuf {
    let fail = |reason: String| -> ! {
        eprintln!("error: {EVALFILE_VAR}={}: {reason}", path.display());
        std::process::exit(1);
    };
    let absolute = match path.canonicalize() {
        Ok(absolute) => absolute,
        Err(e) => fail(format!("cannot open the net file: {e}")),
    };
    match std::fs::metadata(&absolute) {
        Ok(meta) if meta.is_file() && meta.len() > 0 => absolute,
        Ok(meta) if meta.is_file() => fail("the net file is empty".to_string()),
        Ok(_) => fail("not a file".to_string()),
        Err(e) => fail(format!("cannot read the net file: {e}")),
    }
}
