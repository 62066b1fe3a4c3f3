//! Where the tests find the outside truth beside the repository: `../shared/data` (the
//! Connect Four test sets, perft suites, Syzygy tables). A clone without it still passes
//! its tests: those that need it print `SKIPPED` and return.

use std::path::PathBuf;

/// `../shared/data/<name>` next to the repository, or `None` after printing `SKIPPED`
/// (on stderr) when it is not there.
pub fn shared_data(name: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(name);
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "SKIPPED: {} not found (it lives in ../shared/data)",
            path.display()
        );
        None
    }
}
