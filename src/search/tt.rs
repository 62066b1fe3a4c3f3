//! The transposition table: a lock-free hash table of search results shared by all threads.
//!
//! Each entry is two atomic words: the packed data and the key XOR-ed with that data
//! ("lockless hashing"), so a torn write from another thread is detected as a key
//! mismatch instead of being trusted. Entries sit in 64-byte buckets of four; replacement
//! prefers the same position, then empty slots, then the shallowest or oldest entry.

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

/// A decoded table entry, with its score already converted to the probing ply.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TtHit {
    /// The best (or refuting) move's code, 0 when none is stored... see `has_move`.
    pub move_code: u16,
    /// Whether `move_code` is a stored move.
    pub has_move: bool,
    /// Score relative to the probing node.
    pub score: Score,
    /// Remaining depth the score was searched to.
    pub depth: u8,
    /// What kind of bound `score` is.
    pub bound: Bound,
}

const ENTRIES_PER_BUCKET: usize = 4;
/// Bytes of one bucket: four entries of two 8-byte words.
const BUCKET_BYTES: usize = 64;

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

// Packed layout of `data`: bits 0-15 move code, 16-31 score (i16), 32-39 depth,
// 40-41 bound (0 = empty slot), 42 has-move flag, 48-53 age.
fn pack(move_code: Option<u16>, score: i16, depth: u8, bound: Bound, age: u8) -> u64 {
    let bound_bits: u64 = match bound {
        Bound::Lower => 1,
        Bound::Upper => 2,
        Bound::Exact => 3,
    };
    u64::from(move_code.unwrap_or(0))
        | (u64::from(score as u16) << 16)
        | (u64::from(depth) << 32)
        | (bound_bits << 40)
        | (u64::from(move_code.is_some()) << 42)
        | (u64::from(age & 63) << 48)
}

fn unpack_bound(data: u64) -> Option<Bound> {
    match (data >> 40) & 3 {
        1 => Some(Bound::Lower),
        2 => Some(Bound::Upper),
        3 => Some(Bound::Exact),
        _ => None,
    }
}

fn unpack_depth(data: u64) -> u8 {
    (data >> 32) as u8
}

fn unpack_age(data: u64) -> u8 {
    ((data >> 48) & 63) as u8
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
        self.age.store(age.wrapping_add(1) & 63, Ordering::Relaxed);
    }

    fn bucket(&self, key: u64) -> &Bucket {
        let index = ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[index]
    }

    /// Looks `key` up; the score is converted to be relative to `ply`.
    pub fn probe(&self, key: u64, ply: usize) -> Option<TtHit> {
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
            return Some(TtHit {
                move_code: data as u16,
                has_move: (data >> 42) & 1 == 1,
                score: score_from_tt(Score::from((data >> 16) as u16 as i16), ply),
                depth: unpack_depth(data),
                bound,
            });
        }
        None
    }

    /// Stores a search result for `key` searched at `ply`.
    pub fn store(
        &self,
        key: u64,
        ply: usize,
        move_code: Option<u16>,
        score: Score,
        depth: u8,
        bound: Bound,
    ) {
        let age = self.age.load(Ordering::Relaxed);
        let bucket = self.bucket(key);
        let mut victim = &bucket.entries[0];
        let mut victim_worth = i32::MAX;
        for entry in &bucket.entries {
            let data = entry.data.load(Ordering::Relaxed);
            let check = entry.key_xor_data.load(Ordering::Relaxed);
            if check ^ data == key || unpack_bound(data).is_none() {
                victim = entry;
                // Same position: keep its move if the new result has none.
                if check ^ data == key && move_code.is_none() && (data >> 42) & 1 == 1 {
                    let kept = Some(data as u16);
                    return write(entry, key, kept, score, ply, depth, bound, age);
                }
                break;
            }
            let age_gap = i32::from(age.wrapping_sub(unpack_age(data)) & 63);
            let worth = i32::from(unpack_depth(data)) - 8 * age_gap;
            if worth < victim_worth {
                victim_worth = worth;
                victim = entry;
            }
        }
        write(victim, key, move_code, score, ply, depth, bound, age);
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

#[allow(clippy::too_many_arguments)]
fn write(
    entry: &Entry,
    key: u64,
    move_code: Option<u16>,
    score: Score,
    ply: usize,
    depth: u8,
    bound: Bound,
    age: u8,
) {
    let stored = score_to_tt(score, ply).clamp(i16::MIN as Score, i16::MAX as Score) as i16;
    let data = pack(move_code, stored, depth, bound, age);
    entry.data.store(data, Ordering::Relaxed);
    entry.key_xor_data.store(key ^ data, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::MATE;

    #[test]
    fn stores_and_probes_round_trip() {
        let tt = TranspositionTable::new(1);
        tt.store(0xDEAD_BEEF, 0, Some(42), -123, 7, Bound::Lower);
        let hit = tt.probe(0xDEAD_BEEF, 0).expect("stored entry");
        assert_eq!(hit.move_code, 42);
        assert!(hit.has_move);
        assert_eq!(hit.score, -123);
        assert_eq!(hit.depth, 7);
        assert_eq!(hit.bound, Bound::Lower);
        assert!(tt.probe(0xDEAD_BEEE, 0).is_none());
    }

    #[test]
    fn mate_scores_are_ply_independent() {
        let tt = TranspositionTable::new(1);
        // Mate in 5 plies from a node at ply 3 is mate in 2 plies from that node.
        tt.store(99, 3, None, MATE - 5, 4, Bound::Exact);
        let hit = tt.probe(99, 1).expect("stored entry");
        assert_eq!(hit.score, MATE - 3);
        assert!(!hit.has_move);
        tt.store(98, 2, None, -(MATE - 6), 4, Bound::Exact);
        assert_eq!(tt.probe(98, 4).map(|h| h.score), Some(-(MATE - 8)));
    }

    #[test]
    fn keeps_the_move_when_rewritten_without_one() {
        let tt = TranspositionTable::new(1);
        tt.store(7, 0, Some(3), 10, 2, Bound::Exact);
        tt.store(7, 0, None, 20, 3, Bound::Upper);
        let hit = tt.probe(7, 0).expect("stored entry");
        assert_eq!((hit.move_code, hit.has_move, hit.score), (3, true, 20));
    }

    #[test]
    fn replaces_shallow_entries_in_a_full_bucket() {
        let tt = TranspositionTable::new(0); // one bucket
        assert_eq!(tt.bucket_count(), 1);
        for key in 1..=4u64 {
            tt.store(key, 0, None, 0, 10 + key as u8, Bound::Exact);
        }
        tt.store(5, 0, None, 0, 1, Bound::Exact);
        assert!(tt.probe(1, 0).is_none(), "the shallowest entry is replaced");
        assert!(tt.probe(5, 0).is_some());
        assert_eq!(tt.hashfull(), 1000);
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
        tt.clear();
        assert!(tt.probe(5, 0).is_none());
    }

    #[test]
    fn a_zero_key_is_not_mistaken_for_an_empty_slot() {
        let tt = TranspositionTable::new(1);
        assert!(tt.probe(0, 0).is_none());
    }
}
