//! The transposition table: a lock-free hash table of search results shared by all threads.
//!
//! Each entry is two atomic words: the packed data and the key XOR-ed with that data
//! ("lockless hashing"), so a torn write from another thread is detected as a key
//! mismatch instead of being trusted. Entries sit in 64-byte buckets of four. An entry
//! holds the best move, the score and its bound, the depth searched, the static
//! evaluation (so that a node met again is not evaluated again) and the search's age.
//!
//! Replacement: a result for a position already in the bucket overwrites it unless the
//! stored result is from this search, not exact, and deeper by [`SAME_KEY_DEPTH_MARGIN`]
//! plies or more (then only its move is refreshed); otherwise an empty slot is taken, or
//! the entry least worth keeping: shallow, inexact and old entries go first.

use std::alloc::{alloc_zeroed, Layout};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use super::score::{Score, MATE_BOUND};

/// Kind of bound a stored score is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value is at least the score (fail high).
    Lower,
    /// The true value is at most the score (fail low).
    Upper,
    /// The score is exact.
    Exact,
}

/// A search result as stored in (and read back from) the table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TtEntry {
    /// The best (or refuting) move's code, if the search found one.
    pub move_code: Option<u16>,
    /// The score; relative to the node it belongs to (see [`TranspositionTable::probe`]).
    pub score: Score,
    /// The static evaluation of the position, when it was computed (not in check).
    pub eval: Option<Score>,
    /// Remaining depth the score was searched to (0: quiescence).
    pub depth: u8,
    /// What kind of bound `score` is.
    pub bound: Bound,
}

impl TtEntry {
    /// Whether the entry's score, as a bound, settles a search with window
    /// `(alpha, beta)` on its own.
    pub fn cuts(&self, alpha: Score, beta: Score) -> bool {
        match self.bound {
            Bound::Exact => true,
            Bound::Lower => self.score >= beta,
            Bound::Upper => self.score <= alpha,
        }
    }

    /// `eval` corrected by the entry's score where the bound says the true value lies
    /// beyond it in that direction (a lower bound above it, an upper bound below it, or an
    /// exact score), mate scores excepted: a better estimate for pruning decisions.
    pub fn refine(&self, eval: Score) -> Score {
        if self.score.abs() >= MATE_BOUND {
            return eval;
        }
        let better = match self.bound {
            Bound::Exact => true,
            Bound::Lower => self.score > eval,
            Bound::Upper => self.score < eval,
        };
        if better {
            self.score
        } else {
            eval
        }
    }
}

const ENTRIES_PER_BUCKET: usize = 4;
/// Bytes of one bucket: four entries of two 8-byte words.
const BUCKET_BYTES: usize = 64;
/// Ages are counted modulo this (five bits).
const AGE_CYCLE: u8 = 32;
/// A result for a position already stored replaces it when it is exact, when the stored
/// one is from an earlier search, or when it is at most this many plies shallower.
pub const SAME_KEY_DEPTH_MARGIN: i32 = 4;
/// Replacement worth of an exact entry over a bound of the same depth, in plies.
const EXACT_WORTH: i32 = 2;
/// Replacement worth one search of age costs, in plies.
const AGE_WORTH: i32 = 8;
/// The stored code of "no static evaluation" (evaluations stay inside `±MAX_EVAL`).
const NO_EVAL: i16 = i16::MIN;

#[derive(Default)]
struct Entry {
    key_xor_data: AtomicU64,
    data: AtomicU64,
}

#[repr(align(64))]
#[derive(Default)]
struct Bucket {
    entries: [Entry; ENTRIES_PER_BUCKET],
}

// Packed layout of `data`: bits 0-15 move code, 16-31 score (i16), 32-47 static
// evaluation (i16, `NO_EVAL` when none), 48-55 depth, 56-57 bound (0 = empty slot),
// 58 has-move flag, 59-63 age.
fn pack(entry: &TtEntry, stored_score: i16, age: u8) -> u64 {
    let bound_bits: u64 = match entry.bound {
        Bound::Lower => 1,
        Bound::Upper => 2,
        Bound::Exact => 3,
    };
    let eval = entry.eval.map_or(NO_EVAL, |e| {
        e.clamp(i32::from(NO_EVAL) + 1, i32::from(i16::MAX)) as i16
    });
    u64::from(entry.move_code.unwrap_or(0))
        | (u64::from(stored_score as u16) << 16)
        | (u64::from(eval as u16) << 32)
        | (u64::from(entry.depth) << 48)
        | (bound_bits << 56)
        | (u64::from(entry.move_code.is_some()) << 58)
        | (u64::from(age % AGE_CYCLE) << 59)
}

fn unpack_bound(data: u64) -> Option<Bound> {
    match (data >> 56) & 3 {
        1 => Some(Bound::Lower),
        2 => Some(Bound::Upper),
        3 => Some(Bound::Exact),
        _ => None,
    }
}

fn unpack_move(data: u64) -> Option<u16> {
    ((data >> 58) & 1 == 1).then_some(data as u16)
}

fn unpack_depth(data: u64) -> u8 {
    (data >> 48) as u8
}

fn unpack_age(data: u64) -> u8 {
    (data >> 59) as u8 % AGE_CYCLE
}

/// The entry stored in `data` (valid: its bound is set), its score still relative to its
/// own node.
fn unpack(data: u64, bound: Bound) -> TtEntry {
    let eval = (data >> 32) as u16 as i16;
    TtEntry {
        move_code: unpack_move(data),
        score: Score::from((data >> 16) as u16 as i16),
        eval: (eval != NO_EVAL).then_some(Score::from(eval)),
        depth: unpack_depth(data),
        bound,
    }
}

/// Converts a score relative to the node at `ply` into one relative to that node itself,
/// so mate distances stay right wherever the position is met again.
pub fn score_to_tt(score: Score, ply: usize) -> Score {
    if score >= MATE_BOUND {
        score + ply as Score
    } else if score <= -MATE_BOUND {
        score - ply as Score
    } else {
        score
    }
}

/// Inverse of [`score_to_tt`].
pub fn score_from_tt(score: Score, ply: usize) -> Score {
    if score >= MATE_BOUND {
        score - ply as Score
    } else if score <= -MATE_BOUND {
        score + ply as Score
    } else {
        score
    }
}

/// Starts loading the cache line that holds `value` into the cache (a hint: nothing where
/// the target has no prefetch), so that a read soon after finds it there instead of
/// waiting on memory. The table's buckets and the Connect Four solver's slots use it.
#[inline]
pub fn prefetch_line<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let address: *const T = value;
        // SAFETY: SSE is part of every x86-64 target, and a prefetch only hints the
        // cache: it reads nothing and cannot fault, whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(address.cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// The shared transposition table.
pub struct TranspositionTable {
    buckets: Box<[Bucket]>,
    age: AtomicU8,
}

impl TranspositionTable {
    /// A table of at most `megabytes` MiB (at least one bucket), or `None` when the
    /// memory cannot be had. The memory is requested zeroed from the allocator, so a large
    /// table costs nothing until it is used.
    pub fn try_new(megabytes: usize) -> Option<TranspositionTable> {
        let bytes = megabytes.saturating_mul(1024 * 1024);
        let count = (bytes / BUCKET_BYTES).max(1);
        let layout = Layout::array::<Bucket>(count).ok()?;
        // SAFETY: the layout is non-empty (count >= 1). A bucket is only atomic integers,
        // for which all-zero bytes are a valid value, so the zeroed block is `count`
        // initialised buckets; the box frees it with the same layout.
        let buckets = unsafe {
            let ptr = alloc_zeroed(layout).cast::<Bucket>();
            if ptr.is_null() {
                return None;
            }
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, count))
        };
        Some(TranspositionTable {
            buckets,
            age: AtomicU8::new(0),
        })
    }

    /// A table of at most `megabytes` MiB; halves the size until the allocation succeeds.
    pub fn new(megabytes: usize) -> TranspositionTable {
        let mut megabytes = megabytes;
        loop {
            if let Some(table) = TranspositionTable::try_new(megabytes) {
                return table;
            }
            if megabytes == 0 {
                std::alloc::handle_alloc_error(Layout::new::<Bucket>());
            }
            megabytes /= 2;
        }
    }

    /// Number of buckets (for tests and diagnostics).
    pub fn bucket_count(&self) -> usize {
        self.buckets.len()
    }

    /// Empties every entry (`ucinewgame`, `Clear Hash`). Not to be called during a search.
    pub fn clear(&self) {
        for bucket in self.buckets.iter() {
            for entry in &bucket.entries {
                entry.data.store(0, Ordering::Relaxed);
                entry.key_xor_data.store(0, Ordering::Relaxed);
            }
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Marks the start of a new search: older entries become preferred victims.
    pub fn new_search(&self) {
        let age = self.age.load(Ordering::Relaxed);
        self.age
            .store(age.wrapping_add(1) % AGE_CYCLE, Ordering::Relaxed);
    }

    fn bucket(&self, key: u64) -> &Bucket {
        let index = ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[index]
    }

    /// Starts loading `key`'s bucket into the cache (a hint; nothing where the target has
    /// no prefetch): called once a child's key is known, its probe then finds the bucket
    /// in the cache instead of waiting on memory.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        prefetch_line(self.bucket(key));
    }

    /// Looks `key` up; the score is converted to be relative to `ply`.
    pub fn probe(&self, key: u64, ply: usize) -> Option<TtEntry> {
        let bucket = self.bucket(key);
        for entry in &bucket.entries {
            let data = entry.data.load(Ordering::Relaxed);
            let check = entry.key_xor_data.load(Ordering::Relaxed);
            if check ^ data != key {
                continue;
            }
            let Some(bound) = unpack_bound(data) else {
                continue;
            };
            let mut found = unpack(data, bound);
            found.score = score_from_tt(found.score, ply);
            return Some(found);
        }
        None
    }

    /// Stores `result`, found for `key` searched at `ply` (its score relative to that
    /// node), by the replacement rules of the module.
    pub fn store(&self, key: u64, ply: usize, result: TtEntry) {
        let age = self.age.load(Ordering::Relaxed);
        let bucket = self.bucket(key);
        let mut victim = &bucket.entries[0];
        let mut victim_worth = i32::MAX;
        for entry in &bucket.entries {
            let data = entry.data.load(Ordering::Relaxed);
            let check = entry.key_xor_data.load(Ordering::Relaxed);
            let Some(bound) = unpack_bound(data) else {
                // An empty slot.
                victim = entry;
                break;
            };
            if check ^ data == key {
                return store_same_key(entry, key, ply, result, unpack(data, bound), age);
            }
            let age_gap = i32::from(age.wrapping_sub(unpack_age(data)) % AGE_CYCLE);
            let worth = i32::from(unpack_depth(data))
                + if bound == Bound::Exact {
                    EXACT_WORTH
                } else {
                    0
                }
                - AGE_WORTH * age_gap;
            if worth < victim_worth {
                victim_worth = worth;
                victim = entry;
            }
        }
        write(victim, key, ply, &result, age);
    }

    /// Permille of sampled entries written during the current search (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed);
        let sample = self.buckets.len().min(250);
        let mut used = 0;
        for bucket in &self.buckets[..sample] {
            for entry in &bucket.entries {
                let data = entry.data.load(Ordering::Relaxed);
                if unpack_bound(data).is_some() && unpack_age(data) == age {
                    used += 1;
                }
            }
        }
        (used * 1000 / (sample * ENTRIES_PER_BUCKET)) as u32
    }
}

/// Stores `result` over `stored`, the entry already held for the same key: replaced when
/// the new result is exact, the old one is from an earlier search, or the new one is not
/// much shallower; otherwise the deeper result stays, with the new move if there is one.
/// A result without a move keeps the stored move.
fn store_same_key(
    entry: &Entry,
    key: u64,
    ply: usize,
    mut result: TtEntry,
    stored: TtEntry,
    age: u8,
) {
    let data = entry.data.load(Ordering::Relaxed);
    let replaces = result.bound == Bound::Exact
        || unpack_age(data) != age % AGE_CYCLE
        || i32::from(result.depth) + SAME_KEY_DEPTH_MARGIN > i32::from(stored.depth);
    if result.move_code.is_none() {
        result.move_code = stored.move_code;
    }
    if replaces {
        write(entry, key, ply, &result, age);
    } else if result.move_code != stored.move_code {
        let kept = TtEntry {
            move_code: result.move_code,
            eval: stored.eval.or(result.eval),
            ..stored
        };
        write_stored(entry, key, &kept, stored.score as i16, age);
    }
}

/// Writes `result`, found at `ply`, into `entry`.
fn write(entry: &Entry, key: u64, ply: usize, result: &TtEntry, age: u8) {
    let stored = score_to_tt(result.score, ply).clamp(i16::MIN as Score, i16::MAX as Score);
    write_stored(entry, key, result, stored as i16, age);
}

/// Writes `result` into `entry` with its score already in table form.
fn write_stored(entry: &Entry, key: u64, result: &TtEntry, stored_score: i16, age: u8) {
    let data = pack(result, stored_score, age);
    entry.data.store(data, Ordering::Relaxed);
    entry.key_xor_data.store(key ^ data, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::MATE;

    fn result(move_code: Option<u16>, score: Score, depth: u8, bound: Bound) -> TtEntry {
        TtEntry {
            move_code,
            score,
            eval: None,
            depth,
            bound,
        }
    }

    #[test]
    fn stores_and_probes_round_trip() {
        let tt = TranspositionTable::new(1);
        let stored = TtEntry {
            eval: Some(-20_000),
            ..result(Some(42), -123, 7, Bound::Lower)
        };
        tt.store(0xDEAD_BEEF, 0, stored);
        assert_eq!(tt.probe(0xDEAD_BEEF, 0), Some(stored));
        assert!(tt.probe(0xDEAD_BEEE, 0).is_none());
        let without_eval = result(None, 5, 0, Bound::Upper);
        tt.store(0xBEEF, 0, without_eval);
        assert_eq!(tt.probe(0xBEEF, 0), Some(without_eval));
    }

    #[test]
    fn mate_scores_are_ply_independent() {
        let tt = TranspositionTable::new(1);
        // Mate in 5 plies from a node at ply 3 is mate in 2 plies from that node.
        tt.store(99, 3, result(None, MATE - 5, 4, Bound::Exact));
        let hit = tt.probe(99, 1).expect("stored entry");
        assert_eq!(hit.score, MATE - 3);
        assert_eq!(hit.move_code, None);
        tt.store(98, 2, result(None, -(MATE - 6), 4, Bound::Exact));
        assert_eq!(tt.probe(98, 4).map(|h| h.score), Some(-(MATE - 8)));
    }

    #[test]
    fn keeps_the_move_when_rewritten_without_one() {
        let tt = TranspositionTable::new(1);
        tt.store(7, 0, result(Some(3), 10, 2, Bound::Exact));
        tt.store(7, 0, result(None, 20, 3, Bound::Upper));
        let hit = tt.probe(7, 0).expect("stored entry");
        assert_eq!((hit.move_code, hit.score), (Some(3), 20));
    }

    #[test]
    fn a_much_shallower_bound_keeps_the_deep_result_of_the_same_search() {
        let tt = TranspositionTable::new(1);
        tt.store(7, 0, result(Some(3), 10, 9, Bound::Lower));
        tt.store(7, 0, result(Some(4), 50, 2, Bound::Upper));
        let hit = tt.probe(7, 0).expect("stored entry");
        assert_eq!((hit.move_code, hit.score, hit.depth), (Some(4), 10, 9));
        // An exact result replaces it; so does any result of a later search.
        tt.store(7, 0, result(None, 30, 1, Bound::Exact));
        assert_eq!(tt.probe(7, 0).map(|h| (h.score, h.depth)), Some((30, 1)));
        tt.store(8, 0, result(None, 10, 9, Bound::Lower));
        tt.new_search();
        tt.store(8, 0, result(None, 40, 1, Bound::Upper));
        assert_eq!(tt.probe(8, 0).map(|h| h.score), Some(40));
    }

    #[test]
    fn replaces_shallow_inexact_and_old_entries_in_a_full_bucket() {
        let tt = TranspositionTable::new(0); // one bucket
        assert_eq!(tt.bucket_count(), 1);
        for key in 1..=4u64 {
            tt.store(key, 0, result(None, 0, 10 + key as u8, Bound::Lower));
        }
        tt.store(5, 0, result(None, 0, 1, Bound::Exact));
        assert!(tt.probe(1, 0).is_none(), "the shallowest entry is replaced");
        assert!(tt.probe(5, 0).is_some());
        tt.store(6, 0, result(None, 0, 1, Bound::Lower));
        assert!(tt.probe(5, 0).is_none());
        tt.store(6, 0, result(None, 0, 20, Bound::Lower));
        // Depth 12 exact (worth 14) outlives depth 13 inexact.
        tt.store(2, 0, result(None, 0, 12, Bound::Exact));
        tt.store(7, 0, result(None, 0, 1, Bound::Lower));
        assert!(tt.probe(3, 0).is_none());
        assert!(tt.probe(2, 0).is_some() && tt.probe(6, 0).is_some());
        assert_eq!(tt.hashfull(), 1000);
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
        // Age costs every entry alike: the least worth goes.
        tt.store(8, 0, result(None, 0, 2, Bound::Lower));
        assert!(tt.probe(7, 0).is_none() && tt.probe(8, 0).is_some());
        tt.clear();
        assert!(tt.probe(8, 0).is_none());
    }

    #[test]
    fn ages_wrap_around() {
        let tt = TranspositionTable::new(1);
        for _ in 0..100 {
            tt.new_search();
        }
        tt.store(3, 0, result(Some(1), 1, 1, Bound::Exact));
        assert_eq!(tt.hashfull(), 1); // one entry of this search in the thousand sampled
        assert!(tt.probe(3, 0).is_some());
    }

    #[test]
    fn refines_an_evaluation_only_in_the_bound_s_direction() {
        let lower = result(None, 100, 3, Bound::Lower);
        assert_eq!(lower.refine(50), 100);
        assert_eq!(lower.refine(150), 150);
        let upper = result(None, 100, 3, Bound::Upper);
        assert_eq!(upper.refine(50), 50);
        assert_eq!(upper.refine(150), 100);
        assert_eq!(result(None, 100, 3, Bound::Exact).refine(-7), 100);
        assert_eq!(result(None, MATE - 3, 3, Bound::Exact).refine(-7), -7);
        assert!(lower.cuts(0, 100) && !lower.cuts(0, 101));
        assert!(upper.cuts(100, 200) && !upper.cuts(99, 200));
    }

    #[test]
    fn a_zero_key_is_not_mistaken_for_an_empty_slot() {
        let tt = TranspositionTable::new(1);
        assert!(tt.probe(0, 0).is_none());
    }
}
