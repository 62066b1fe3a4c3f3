//! The three dialects of the protocol, UCI, UGI and UAI, and every word in which they
//! differ: the handshake and its reply, the new-game command, the clock keys of `go` and
//! the form of `bestmove`. The engine side (reading `go`, writing `bestmove`) and the match
//! runner (writing `go`, reading `bestmove`) both take these words from here, so a dialect
//! is spoken the same way on both ends.

use serde::Serialize;

/// A protocol dialect, chosen by the handshake.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// UCI (chess GUIs): `uci`/`uciok`, `ucinewgame`, clocks named by colour with white
    /// first (`wtime`/`btime`), `bestmove` may carry `ponder`.
    Uci,
    /// UGI (cutegames and other multi-game clients): `ugi`/`ugiok`, `uginewgame`, clocks
    /// named by player (`p1time`/`p2time`), one move in `bestmove`.
    Ugi,
    /// UAI (Ataxx GUIs such as cuteataxx): UCI with `a` for `c`, one move in `bestmove`
    /// (`0000` is a pass), and colour-named clocks where black (`x`) is the first player.
    Uai,
}

/// What the value after a clock key of `go` is: a player's time or increment in ms.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ClockKey {
    /// The first player's remaining time.
    FirstTime,
    /// The second player's remaining time.
    SecondTime,
    /// The first player's increment.
    FirstInc,
    /// The second player's increment.
    SecondInc,
}

impl ClockKey {
    /// The four keys, in the order `go` writes them.
    pub const ALL: [ClockKey; 4] = [
        ClockKey::FirstTime,
        ClockKey::SecondTime,
        ClockKey::FirstInc,
        ClockKey::SecondInc,
    ];

    /// The key's place in [`ClockKey::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// `bestmove`'s word for "no move": the side to move has none (the game is over).
pub const NO_MOVE: &str = "(none)";

/// UCI's null move; in UAI the Ataxx pass, a move like any other when it is forced.
pub const NULL_MOVE: &str = "0000";

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 3] = [Dialect::Uci, Dialect::Ugi, Dialect::Uai];

    /// The dialect whose handshake is `name` (`uci`, `ugi` or `uai`, any case).
    pub fn from_name(name: &str) -> Option<Dialect> {
        let name = name.to_ascii_lowercase();
        Dialect::ALL.into_iter().find(|d| d.handshake() == name)
    }

    /// The handshake command (`uci`), which is also the dialect's name.
    pub fn handshake(self) -> &'static str {
        match self {
            Dialect::Uci => "uci",
            Dialect::Ugi => "ugi",
            Dialect::Uai => "uai",
        }
    }

    /// The engine's reply that ends the handshake (`uciok`).
    pub fn reply(self) -> &'static str {
        match self {
            Dialect::Uci => "uciok",
            Dialect::Ugi => "ugiok",
            Dialect::Uai => "uaiok",
        }
    }

    /// The command that starts a new game (`ucinewgame`).
    pub fn new_game(self) -> &'static str {
        match self {
            Dialect::Uci => "ucinewgame",
            Dialect::Ugi => "uginewgame",
            Dialect::Uai => "uainewgame",
        }
    }

    /// The word `go` uses in this dialect for `key`: UCI names clocks by colour with white
    /// first, UAI by colour with black (`x`) first, UGI by player.
    pub fn clock_word(self, key: ClockKey) -> &'static str {
        use ClockKey::*;
        match (self, key) {
            (Dialect::Uci, FirstTime) | (Dialect::Uai, SecondTime) => "wtime",
            (Dialect::Uci, SecondTime) | (Dialect::Uai, FirstTime) => "btime",
            (Dialect::Uci, FirstInc) | (Dialect::Uai, SecondInc) => "winc",
            (Dialect::Uci, SecondInc) | (Dialect::Uai, FirstInc) => "binc",
            (Dialect::Ugi, FirstTime) => "p1time",
            (Dialect::Ugi, SecondTime) => "p2time",
            (Dialect::Ugi, FirstInc) => "p1inc",
            (Dialect::Ugi, SecondInc) => "p2inc",
        }
    }

    /// What `word` of a `go` line means to an engine speaking this dialect: its own keys
    /// first; the player-named keys (`p1time`...) mean the same in every dialect, and the
    /// colour-named ones are read as UCI reads them where the dialect has none of its own.
    pub fn read_clock_word(self, word: &str) -> Option<ClockKey> {
        [self, Dialect::Ugi, Dialect::Uci]
            .into_iter()
            .find_map(|d| ClockKey::ALL.into_iter().find(|&k| d.clock_word(k) == word))
    }

    /// Whether `bestmove` may name a move to ponder on after the best one. UGI and UAI
    /// clients (cutegames, cuteataxx) read exactly one move.
    pub fn bestmove_has_ponder(self) -> bool {
        self == Dialect::Uci
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_keys_index_their_place_in_all() {
        for (place, key) in ClockKey::ALL.into_iter().enumerate() {
            assert_eq!(key.index(), place);
        }
    }

    #[test]
    fn names_replies_and_new_games() {
        for dialect in Dialect::ALL {
            let name = dialect.handshake();
            assert_eq!(Dialect::from_name(name), Some(dialect));
            assert_eq!(dialect.reply(), format!("{name}ok"));
            assert_eq!(dialect.new_game(), format!("{name}newgame"));
        }
        assert_eq!(Dialect::from_name("UAI"), Some(Dialect::Uai));
        assert_eq!(Dialect::from_name("xboard"), None);
    }

    #[test]
    fn clock_words_are_read_back_as_written() {
        for dialect in Dialect::ALL {
            for key in ClockKey::ALL {
                assert_eq!(dialect.read_clock_word(dialect.clock_word(key)), Some(key));
            }
        }
        // UAI: black is first; player names mean the same everywhere; UGI reads colours
        // as UCI does.
        assert_eq!(Dialect::Uai.clock_word(ClockKey::FirstTime), "btime");
        assert_eq!(
            Dialect::Uai.read_clock_word("p2inc"),
            Some(ClockKey::SecondInc)
        );
        assert_eq!(
            Dialect::Ugi.read_clock_word("wtime"),
            Some(ClockKey::FirstTime)
        );
        assert_eq!(Dialect::Uci.read_clock_word("movestogo"), None);
    }

    #[test]
    fn only_uci_ponders() {
        assert!(Dialect::Uci.bestmove_has_ponder());
        assert!(!Dialect::Ugi.bestmove_has_ponder());
        assert!(!Dialect::Uai.bestmove_has_ponder());
    }
}
