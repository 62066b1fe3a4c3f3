//! What a match writes: each game as it finishes (PGN and record files, a line on stdout,
//! the progress bar), the JSON results at the end, and the final summary table.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use indicatif::{ProgressBar, ProgressStyle};

use super::config::MatchConfig;
use super::pgn;
use super::stats::EloEstimate;
use super::tally::{GameEntry, MatchEnd, MatchResults, PairingResult, SprtReport};
use crate::referee::GameRecord;

/// The outputs written while games finish: files opened at the start and appended to,
/// the per-game lines and the progress bar.
pub(super) struct Output<'a> {
    config: &'a MatchConfig,
    pgn: Option<File>,
    record: Option<File>,
    progress: ProgressBar,
    /// PGN `Date`, the day the match started.
    date: String,
    /// PGN `TimeControl`, see [`pgn_time_control`].
    time_control: String,
    /// Whether a failed write to the PGN or record file was reported (once per match).
    write_failed: bool,
}

impl<'a> Output<'a> {
    /// Creates the PGN and record files (when asked) and a progress bar over `total`
    /// games.
    pub(super) fn open(config: &'a MatchConfig, total: usize) -> Result<Output<'a>, String> {
        let pgn = create(&config.pgn_out)?;
        let record = create(&config.record_out)?;
        let progress = ProgressBar::new(total as u64);
        progress.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} games {elapsed} {msg}")
                .expect("valid template"),
        );
        Ok(Output {
            config,
            pgn,
            record,
            progress,
            date: pgn_date(),
            time_control: pgn_time_control(config),
            write_failed: false,
        })
    }

    /// Writes the `number`th counted game: to the PGN and record files, and as a line on
    /// stdout unless `-quiet` (a forfeit always, with the engine's last lines).
    pub(super) fn game(&mut self, number: usize, entry: &GameEntry) {
        let round = entry.round_label();
        let record = &entry.record;
        if let Some(file) = self.pgn.as_mut() {
            let ctx = pgn::PgnContext {
                event: &self.config.event,
                game: self.config.game,
                round: &round,
                time_control: &self.time_control,
                date: &self.date,
            };
            let text = pgn::to_pgn(record, &ctx);
            if let Err(e) = file.write_all(text.as_bytes()).and_then(|()| file.flush()) {
                self.write_failed(&format!("cannot write the PGN file: {e}"));
            }
        }
        if let Some(file) = self.record.as_mut() {
            let text = pgn::to_record_line(record, &round);
            if let Err(e) = file.write_all(text.as_bytes()).and_then(|()| file.flush()) {
                self.write_failed(&format!("cannot write the record file: {e}"));
            }
        }
        // Forfeits are printed under -quiet too: an operator must see a broken engine.
        if self.config.verbose_games || record.termination.is_forfeit() {
            let text = finished_game(number, record);
            self.progress.suspend(|| println!("{text}"));
        }
    }

    /// Reports the first failed write of the match on stderr; the games go on.
    fn write_failed(&mut self, what: &str) {
        if !self.write_failed {
            self.write_failed = true;
            self.progress.suspend(|| eprintln!("warning: {what}"));
        }
    }

    /// Advances the progress bar by a game, showing the score of the `main` pairing.
    pub(super) fn progress(&self, main: &PairingResult) {
        self.progress.set_message(format!(
            "{} vs {}: {} - {} - {} [{:.3}]",
            main.first,
            main.second,
            main.wdl.wins,
            main.wdl.losses,
            main.wdl.draws,
            main.wdl.score().unwrap_or(0.5)
        ));
        self.progress.inc(1);
    }

    /// Removes the progress bar.
    pub(super) fn finish(self) {
        self.progress.finish_and_clear();
    }
}

/// The PGN `TimeControl` of the match's games: the engines' common clock, `?` when they
/// play under different ones.
fn pgn_time_control(config: &MatchConfig) -> String {
    let mut controls = config.engines.iter().map(|e| e.limits.pgn_time_control());
    match controls.next() {
        Some(first) if controls.all(|other| other == first) => first,
        _ => "?".to_string(),
    }
}

/// Creates the file at `path`, if one is given.
fn create(path: &Option<PathBuf>) -> Result<Option<File>, String> {
    path.as_ref()
        .map(|p| File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display())))
        .transpose()
}

/// `Finished game N (a vs b): result {reason}`, with the faulty engine's last lines.
fn finished_game(number: usize, record: &GameRecord) -> String {
    let mut text = format!(
        "Finished game {number} ({} vs {}): {} {{{}}}",
        record.first,
        record.second,
        record.result_text(),
        record.reason
    );
    if !record.engine_tail.is_empty() {
        text += "\n  last lines of the engine:";
        for line in &record.engine_tail {
            text += &format!("\n    {line}");
        }
    }
    text
}

/// Today's date as `YYYY.MM.DD` (UTC).
fn pgn_date() -> String {
    let days = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

/// Writes the results as pretty JSON to `path` (through `PATH.tmp` and a rename, so a
/// reader never sees half a file).
pub(super) fn write_json(path: &Path, results: &MatchResults) -> Result<(), String> {
    let json = serde_json::to_string_pretty(results).map_err(|e| e.to_string())?;
    let mut temp = path.as_os_str().to_owned();
    temp.push(".tmp");
    let failed = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    std::fs::write(&temp, json + "\n").map_err(failed)?;
    std::fs::rename(&temp, path).map_err(failed)
}

/// The final table: per pairing W/D/L, score, Elo ± interval, LOS, pentanomial, and SPRT.
pub fn summary(results: &MatchResults) -> String {
    let mut out = String::new();
    for pairing in &results.pairings {
        out += &pairing_summary(pairing, &results.game);
    }
    if let Some(sprt) = &results.sprt {
        out += &sprt_summary(sprt);
    }
    let end = match results.end {
        MatchEnd::Completed => "completed",
        MatchEnd::SprtDecided => "stopped: SPRT decided",
        MatchEnd::Interrupted => "interrupted",
    };
    // The pairings' counts (each counted game is in one), also for merged results.
    let games: u64 = results.pairings.iter().map(|p| p.wdl.games()).sum();
    out += &format!("Match {end} after {games} games\n");
    out
}

/// One pairing's lines of the summary.
pub(crate) fn pairing_summary(p: &PairingResult, game: &str) -> String {
    let mut out = format!("Results of {} vs {} ({game}):\n", p.first, p.second);
    out += &format!(
        "  Games: {}, Wins: {}, Losses: {}, Draws: {}, Points: {:.1} ({:.2} %)\n",
        p.wdl.games(),
        p.wdl.wins,
        p.wdl.losses,
        p.wdl.draws,
        p.wdl.points(),
        100.0 * p.wdl.score().unwrap_or(0.0)
    );
    if let Some(e) = &p.elo {
        out += &format!("  Trinomial   {}\n", elo_summary(e));
    }
    if p.penta.pairs() > 0 {
        let c = p.penta.counts;
        out += &format!(
            "  Ptnml(0-2): [{}, {}, {}, {}, {}]\n",
            c[0], c[1], c[2], c[3], c[4]
        );
        if let Some(e) = &p.elo_penta {
            out += &format!("  Pentanomial {}\n", elo_summary(e));
        }
    }
    out
}

/// `Elo: 12.34 +/- 5.67 [...], nElo: ..., LOS: ... %`.
fn elo_summary(e: &EloEstimate) -> String {
    if !e.elo.is_finite() {
        return format!("Elo: {:.2} (every game won or lost: no interval)", e.elo);
    }
    if e.upper == e.lower {
        // One sample, or all alike: the spread is unknown, not zero.
        return format!(
            "Elo: {:.2} (every sample scored the same: no interval)",
            e.elo
        );
    }
    format!(
        "Elo: {:.2} +/- {:.2} [{:.2}, {:.2}], nElo: {:.2}, LOS: {:.2} %",
        e.elo,
        e.error(),
        e.lower,
        e.upper,
        e.nelo,
        100.0 * e.los
    )
}

/// The SPRT line of the summary.
pub(crate) fn sprt_summary(s: &SprtReport) -> String {
    format!(
        "SPRT ({:?} model): elo0 {:.2}, elo1 {:.2}, alpha {}, beta {}: LLR {:.2} ({:.2}, {:.2}): {}\n",
        s.sprt.model, s.sprt.elo0, s.sprt.elo1, s.sprt.alpha, s.sprt.beta, s.llr, s.lower, s.upper, s.decision
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_lines_give_no_interval_where_there_is_none() {
        let estimate = |elo: f64, lower: f64, upper: f64| EloEstimate {
            elo,
            lower,
            upper,
            nelo: 0.0,
            los: 0.5,
        };
        let spread = elo_summary(&estimate(10.0, -5.0, 25.0));
        assert!(
            spread.starts_with("Elo: 10.00 +/- 15.00 [-5.00, 25.00]"),
            "{spread}"
        );
        let alike = elo_summary(&estimate(0.0, 0.0, 0.0));
        assert_eq!(
            alike,
            "Elo: 0.00 (every sample scored the same: no interval)"
        );
        let all_won = elo_summary(&estimate(f64::INFINITY, 0.0, 0.0));
        assert!(all_won.contains("every game won or lost"), "{all_won}");
    }
}
