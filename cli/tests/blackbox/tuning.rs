//! The tuning pipeline through the real binary: `cutoff datagen` writes the store's games,
//! `cutoff data export` their labelled positions, `cutoff tune` reads them and writes a
//! weights file in the committed format.

use std::process::Command;

const CUTOFF: &str = env!("CARGO_BIN_EXE_cutoff");

#[test]
fn datagen_then_tune() {
    let dir = std::env::temp_dir().join(format!("cutoff-tuning-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let games = dir.join("games.cgr");
    let data = dir.join("data.txt");
    let weights = dir.join("weights.rs");
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/../openings/chess.txt");

    let output = Command::new(CUTOFF)
        .args([
            "datagen",
            "--games",
            "4",
            "--nodes",
            "300",
            "--threads",
            "2",
        ])
        .args(["--book", book, "--out"])
        .arg(&games)
        .output()
        .expect("cutoff runs");
    assert!(output.status.success(), "{output:?}");
    let output = Command::new(CUTOFF)
        .args(["data", "export", "--data"])
        .arg(&games)
        .arg("--out")
        .arg(&data)
        .output()
        .expect("cutoff runs");
    assert!(output.status.success(), "{output:?}");
    let text = std::fs::read_to_string(&data).expect("positions written");
    let lines = text.lines().count();
    assert!(lines > 10, "{text}");
    assert!(text.lines().all(|line| line.contains(';')));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.starts_with(&format!("{lines} records written")),
        "{stdout}"
    );
    // The text format is a conversion of the store's games, no datagen format.
    let output = Command::new(CUTOFF)
        .args(["datagen", "--games", "1", "--format", "text", "--out"])
        .arg(&data)
        .output()
        .expect("cutoff runs");
    assert!(!output.status.success(), "{output:?}");

    let output = Command::new(CUTOFF)
        .args(["tune", "--iterations", "5", "--data"])
        .arg(&data)
        .arg("--out")
        .arg(&weights)
        .output()
        .expect("cutoff runs");
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("weights written"), "{stdout}");
    let source = std::fs::read_to_string(&weights).expect("weights written");
    assert!(source.contains("pub static WEIGHTS: Weights = ["));
    assert!(source.contains("// tempo"));

    // Bad input is an error, not a panic.
    let output = Command::new(CUTOFF)
        .args(["tune", "--data", "/nonexistent/positions.txt"])
        .output()
        .expect("cutoff runs");
    assert_eq!(output.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}
