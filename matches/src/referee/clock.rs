//! Time controls and clocks: the limits an engine searches by, each player's clock as the
//! referee keeps it, the `go` command that tells an engine both, and the time it is allowed.

use std::time::Duration;

use serde::Serialize;

use cutoff::protocol::dialect::{ClockKey, Dialect};

/// How long an engine may think, as `go` tells it and the referee enforces it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct SearchLimits {
    /// Clock: base time in ms.
    pub base_ms: Option<u64>,
    /// Clock: increment per move in ms.
    pub inc_ms: u64,
    /// Clock: moves per period (the base is added again after them).
    pub moves_per_period: Option<u32>,
    /// Fixed time per move in ms.
    pub movetime_ms: Option<u64>,
    /// Fixed depth.
    pub depth: Option<u32>,
    /// Fixed node count.
    pub nodes: Option<u64>,
}

impl SearchLimits {
    /// Whether the limits bound the time the engine may think (a clock or a move time).
    pub fn is_timed(&self) -> bool {
        self.base_ms.is_some() || self.movetime_ms.is_some()
    }

    /// The time control as the PGN standard writes it (`40/10+0.1`, `10+0.1`, in seconds),
    /// or `-` for limits that are not a clock (fixed time per move, depth, nodes), which
    /// the standard cannot express.
    pub fn pgn_time_control(&self) -> String {
        match (self.base_ms, self.movetime_ms, self.depth, self.nodes) {
            (Some(_), None, None, None) => self.describe(),
            _ => "-".to_string(),
        }
    }

    /// The limits in words, in `TimeControl` style where they are a clock (`40/10+0.1`,
    /// `10+0.1`, `st=0.1`, `depth=4`, `-`).
    pub fn describe(&self) -> String {
        let secs = |ms: u64| {
            let text = format!("{:.3}", ms as f64 / 1000.0);
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        };
        let mut parts = Vec::new();
        if let Some(base) = self.base_ms {
            let moves = self
                .moves_per_period
                .map(|m| format!("{m}/"))
                .unwrap_or_default();
            parts.push(format!("{moves}{}+{}", secs(base), secs(self.inc_ms)));
        }
        if let Some(ms) = self.movetime_ms {
            parts.push(format!("st={}", secs(ms)));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth={d}"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("nodes={n}"));
        }
        if parts.is_empty() {
            "-".to_string()
        } else {
            parts.join(" ")
        }
    }
}

/// One player's clock, run by that player's limits.
#[derive(Clone, Copy, Debug)]
pub(super) struct Clock {
    limits: SearchLimits,
    remaining_ms: u64,
    moves_to_go: Option<u32>,
}

impl Clock {
    /// A full clock at the start of a game.
    pub(super) fn new(limits: &SearchLimits) -> Clock {
        Clock {
            limits: *limits,
            remaining_ms: limits.base_ms.unwrap_or(0),
            moves_to_go: limits.moves_per_period,
        }
    }

    /// Charges a move that took `time_ms` to a running clock: the clock never goes
    /// negative (the time margin forgives small overruns), the increment is added, and a
    /// finished period adds the base time again.
    pub(super) fn charge(&mut self, time_ms: u64) {
        if self.limits.base_ms.is_none() {
            return;
        }
        self.remaining_ms = self.remaining_ms.saturating_sub(time_ms) + self.limits.inc_ms;
        if let Some(left) = self.moves_to_go.as_mut() {
            *left -= 1;
            if *left == 0 {
                *left = self.limits.moves_per_period.unwrap_or(1);
                self.remaining_ms += self.limits.base_ms.unwrap_or(0);
            }
        }
    }

    /// The longest an engine with `limits` may think on this clock before it forfeits:
    /// the clock or move time plus `margin`, or `untimed` when neither bounds it.
    pub(super) fn allowed(
        &self,
        limits: &SearchLimits,
        margin: Duration,
        untimed: Duration,
    ) -> Duration {
        if limits.base_ms.is_some() {
            Duration::from_millis(self.remaining_ms) + margin
        } else if let Some(ms) = limits.movetime_ms {
            Duration::from_millis(ms) + margin
        } else {
            untimed
        }
    }
}

/// The `go` command for the side at `side`, searching by `limits`, with both clocks named
/// in `dialect`'s words (UAI: `btime` is the first player's).
pub(super) fn go_command(
    dialect: Dialect,
    limits: &SearchLimits,
    clocks: &[Clock; 2],
    side: usize,
) -> String {
    let mut go = String::from("go");
    if limits.base_ms.is_some() {
        for key in ClockKey::ALL {
            let ms = match key {
                ClockKey::FirstTime => clocks[0].remaining_ms,
                ClockKey::SecondTime => clocks[1].remaining_ms,
                ClockKey::FirstInc => clocks[0].limits.inc_ms,
                ClockKey::SecondInc => clocks[1].limits.inc_ms,
            };
            go += &format!(" {} {ms}", dialect.clock_word(key));
        }
    }
    if let Some(left) = clocks[side].moves_to_go {
        go += &format!(" movestogo {left}");
    }
    if let Some(ms) = limits.movetime_ms {
        go += &format!(" movetime {ms}");
    }
    if let Some(d) = limits.depth {
        go += &format!(" depth {d}");
    }
    if let Some(n) = limits.nodes {
        go += &format!(" nodes {n}");
    }
    go
}

/// Parses the value of `key`, saying which key had a bad value.
pub(crate) fn parse_num<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("invalid value '{value}' for '{key}'"))
}

/// Parses a time in seconds (fractions allowed) into milliseconds.
pub(crate) fn parse_secs(key: &str, value: &str) -> Result<u64, String> {
    let secs: f64 = parse_num(key, value)?;
    if !(secs.is_finite() && secs >= 0.0) {
        return Err(format!("invalid value '{value}' for '{key}'"));
    }
    Ok((secs * 1000.0).round() as u64)
}

/// Parses `[moves/]base[+inc]` in seconds (`10+0.1`, `40/60`, `0:30+0.5` minutes:seconds).
pub fn parse_tc(text: &str) -> Result<SearchLimits, String> {
    let (moves, rest) = match text.split_once('/') {
        Some((m, rest)) => (Some(parse_num::<u32>("tc", m)?), rest),
        None => (None, text),
    };
    if moves == Some(0) {
        return Err(format!("invalid time control '{text}'"));
    }
    let (base, inc) = rest.split_once('+').unwrap_or((rest, "0"));
    let base_ms = match base.split_once(':') {
        Some((min, sec)) => parse_secs("tc", min)? * 60 + parse_secs("tc", sec)?,
        None => parse_secs("tc", base)?,
    };
    let inc_ms = parse_secs("tc", inc)?;
    if base_ms == 0 && inc_ms == 0 {
        return Err(format!("time control '{text}' gives no time at all"));
    }
    Ok(SearchLimits {
        base_ms: Some(base_ms),
        inc_ms,
        moves_per_period: moves,
        ..SearchLimits::default()
    })
}

/// Gomocup's `time_left` for a match without a clock: "no limit".
const GOMOCUP_UNLIMITED: u64 = 2_147_483_647;

/// The `INFO` lines that tell a Gomocup engine its time before a move, searching by
/// `limits` on `clock`: `timeout_match` (the clock's base, 0 without a clock),
/// `timeout_turn` (the clock's time left, the move time, or `untimed` when neither bounds
/// it) and `time_left` (the clock's time left, or "unlimited"). The protocol has no
/// increment: the referee adds it after the move, so the engine is never told time it
/// does not have yet.
pub(super) fn gomocup_time_info(
    limits: &SearchLimits,
    clock: &Clock,
    untimed: Duration,
) -> [String; 3] {
    let (matched, turn, left) = match (limits.base_ms, limits.movetime_ms) {
        (Some(base), movetime) => {
            let left = clock.remaining_ms;
            (base, movetime.map_or(left, |ms| ms.min(left)), left)
        }
        (None, Some(ms)) => (0, ms, GOMOCUP_UNLIMITED),
        (None, None) => (0, untimed.as_millis() as u64, GOMOCUP_UNLIMITED),
    };
    [
        format!("INFO timeout_match {matched}"),
        format!("INFO timeout_turn {turn}"),
        format!("INFO time_left {left}"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_are_described() {
        let limits = SearchLimits {
            base_ms: Some(10_000),
            inc_ms: 100,
            ..SearchLimits::default()
        };
        assert_eq!(limits.describe(), "10+0.1");
        assert_eq!(limits.pgn_time_control(), "10+0.1");
        let depth = SearchLimits {
            depth: Some(4),
            ..SearchLimits::default()
        };
        assert_eq!(depth.describe(), "depth=4");
        assert_eq!(depth.pgn_time_control(), "-");
        assert!(!depth.is_timed());
    }

    #[test]
    fn clocks_run_by_periods_and_go_tells_both() {
        let limits = SearchLimits {
            base_ms: Some(1000),
            inc_ms: 100,
            moves_per_period: Some(2),
            ..SearchLimits::default()
        };
        let mut clocks = [Clock::new(&limits), Clock::new(&limits)];
        clocks[0].charge(300);
        assert_eq!(clocks[0].remaining_ms, 800);
        // Overrunning empties the clock, never below zero; the period's end refills it.
        clocks[0].charge(900);
        assert_eq!(
            (clocks[0].remaining_ms, clocks[0].moves_to_go),
            (1100, Some(2))
        );
        let go = go_command(Dialect::Ugi, &limits, &clocks, 1);
        assert_eq!(
            go,
            "go p1time 1100 p2time 1000 p1inc 100 p2inc 100 movestogo 2"
        );
        // UAI: black (`x`) is the first player, so its clock is `btime`.
        let go = go_command(Dialect::Uai, &limits, &clocks, 1);
        assert_eq!(go, "go btime 1100 wtime 1000 binc 100 winc 100 movestogo 2");
        let margin = Duration::from_millis(50);
        let allowed = clocks[1].allowed(&limits, margin, Duration::from_secs(60));
        assert_eq!(allowed, Duration::from_millis(1050));
        let depth = SearchLimits {
            depth: Some(3),
            ..SearchLimits::default()
        };
        let mut untimed = Clock::new(&depth);
        untimed.charge(500);
        assert_eq!(untimed.remaining_ms, 0);
        assert_eq!(
            untimed
                .allowed(&depth, margin, Duration::from_secs(60))
                .as_secs(),
            60
        );
    }

    #[test]
    fn gomocup_engines_are_told_the_time_they_have() {
        let limits = SearchLimits {
            base_ms: Some(10_000),
            inc_ms: 100,
            ..SearchLimits::default()
        };
        let mut clock = Clock::new(&limits);
        clock.charge(2_000);
        let untimed = Duration::from_secs(60);
        assert_eq!(
            gomocup_time_info(&limits, &clock, untimed),
            [
                "INFO timeout_match 10000",
                "INFO timeout_turn 8100",
                "INFO time_left 8100"
            ]
        );
        let movetime = SearchLimits {
            movetime_ms: Some(500),
            ..SearchLimits::default()
        };
        let info = gomocup_time_info(&movetime, &Clock::new(&movetime), untimed);
        assert_eq!(info[1], "INFO timeout_turn 500");
        assert_eq!(info[2], "INFO time_left 2147483647");
        let depth = SearchLimits {
            depth: Some(3),
            ..SearchLimits::default()
        };
        let info = gomocup_time_info(&depth, &Clock::new(&depth), untimed);
        assert_eq!(info[0], "INFO timeout_match 0");
        assert_eq!(info[1], "INFO timeout_turn 60000");
    }
}
