//! The experiments ledger `docs/experiments.tsv` stays readable by scripts: its header,
//! then one row per experiment with exactly seven fields (date, commit, game, change,
//! command, result, kept), none empty, no tab or line break inside a field.

use std::path::Path;

const HEADER: [&str; 7] = [
    "date", "commit", "game", "change", "command", "result", "kept",
];

/// The games a row may name: the registry's, as `--game` spells them, or `all` for what
/// concerns no game alone (the build, the tests, the protocol layer).
const GAMES: [&str; 5] = ["chess", "connect4", "ataxx", "gomoku", "all"];

fn is_date(field: &str) -> bool {
    let parts: Vec<&str> = field.split('-').collect();
    parts.len() == 3
        && [4, 2, 2]
            .iter()
            .zip(&parts)
            .all(|(len, part)| part.len() == *len && part.bytes().all(|b| b.is_ascii_digit()))
}

fn is_commit(field: &str) -> bool {
    (7..=40).contains(&field.len()) && field.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The problems of one row (line number `line`, 1-based), if any.
fn row_problems(line: usize, row: &str) -> Vec<String> {
    let fields: Vec<&str> = row.split('\t').collect();
    if fields.len() != HEADER.len() {
        return vec![format!("line {line}: {} fields, not 7", fields.len())];
    }
    let mut problems = Vec::new();
    for (name, field) in HEADER.iter().zip(&fields) {
        if field.trim().is_empty() || field.trim() != *field {
            problems.push(format!("line {line}: {name} is empty or padded: {field:?}"));
        }
    }
    if !is_date(fields[0]) {
        problems.push(format!(
            "line {line}: date {:?} is not YYYY-MM-DD",
            fields[0]
        ));
    }
    if !is_commit(fields[1]) {
        problems.push(format!("line {line}: commit {:?} is not a hash", fields[1]));
    }
    if !GAMES.contains(&fields[2]) {
        problems.push(format!("line {line}: unknown game {:?}", fields[2]));
    }
    if !["yes", "no", "n/a"].contains(&fields[6]) {
        problems.push(format!(
            "line {line}: kept {:?} is not yes, no or n/a",
            fields[6]
        ));
    }
    problems
}

#[test]
fn every_row_of_the_ledger_has_its_seven_fields() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/experiments.tsv");
    let text = std::fs::read_to_string(&path).expect("docs/experiments.tsv is readable");
    assert!(
        text.ends_with('\n') && !text.contains('\r'),
        "one row a line, LF endings"
    );
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(HEADER.join("\t").as_str()), "the header");
    let rows: Vec<&str> = lines.collect();
    assert!(
        rows.len() >= 100,
        "{} rows: the ledger lost rows",
        rows.len()
    );
    let problems: Vec<String> = rows
        .iter()
        .enumerate()
        .flat_map(|(i, row)| row_problems(i + 2, row))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_malformed_row_is_caught() {
    assert!(row_problems(2, "2026-12-07\tabc1234\tchess\tx\ty\tz\tyes").is_empty());
    assert!(!row_problems(2, "2026-12-07\tabc1234\tchess\tx\ty\tyes").is_empty());
    assert!(!row_problems(2, "7.12.2026\tabc1234\tchess\tx\ty\tz\tyes").is_empty());
    assert!(!row_problems(2, "2026-12-07\tnot-hash\tchess\tx\ty\tz\tyes").is_empty());
    assert!(!row_problems(2, "2026-12-07\tabc1234\tgo\tx\ty\tz\tyes").is_empty());
    assert!(!row_problems(2, "2026-12-07\tabc1234\tchess\t\ty\tz\tyes").is_empty());
    assert!(!row_problems(2, "2026-12-07\tabc1234\tchess\tx\ty\tz\tmaybe").is_empty());
}
