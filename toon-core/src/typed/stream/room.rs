//! How much room a stream makes at once for the rows a table's header
//! declares: for their ranges, their values and their text. A header's `[N]`
//! is the model's word, so one that overstates its count must not make a
//! stream costly: the room is for at most `ROOM_AT_ONCE` rows, in at most a
//! quarter of the bytes a reply may take, and in no more bytes than the lines
//! read since the last table took its room (and `FIRST_ROOM` at the start), so
//! that all the tables of a reply reserve a few times its text between them.

use crate::reply::ReplyOptions;

/// The most rows a stream makes room for before they arrive.
pub(crate) const ROOM_AT_ONCE: usize = 1 << 14;

/// The bytes of room the first table may take before any line has earned more.
pub(crate) const FIRST_ROOM: usize = 1 << 16;

/// Room for the rows a header declares, within the bounds above.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Room {
    rows: usize,
    bytes: usize,
}

impl Room {
    /// Room for `count` rows, under `options`' bound on a reply's size and
    /// in at most `earned` bytes.
    pub(crate) fn for_count(count: usize, options: &ReplyOptions, earned: usize) -> Self {
        Room {
            rows: count.min(ROOM_AT_ONCE),
            bytes: (options.max_bytes / 4).min(earned),
        }
    }

    /// How many items of `size` bytes, one a row, to make room for.
    pub(crate) fn items(self, size: usize) -> usize {
        self.rows.min(self.bytes / size.max(1))
    }

    /// How many bytes of text to make room for, each row a line like the
    /// first, of `line_len` bytes and its line break.
    pub(crate) fn text(self, line_len: usize) -> usize {
        let line = line_len.saturating_add(1);
        self.items(line) * line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Room for a table's declared rows, bounded as a header that
    /// overstates its count cannot make costly.
    #[test]
    fn room_is_the_declared_rows_within_bounds() {
        let options = ReplyOptions::default();
        let room = Room::for_count(100, &options, usize::MAX);
        assert_eq!(room.items(16), 100);
        assert_eq!(room.text(39), 100 * 40);
        // An overstated count: no more than `ROOM_AT_ONCE` rows.
        let overstated = Room::for_count(usize::MAX, &options, usize::MAX);
        assert_eq!(overstated.items(16), ROOM_AT_ONCE);
        assert_eq!(overstated.text(39), ROOM_AT_ONCE * 40);
        // Rows too large for the bound: none made room for in advance.
        assert_eq!(overstated.items(usize::MAX), 0);
        assert_eq!(overstated.text(usize::MAX), 0);
        // A tight bound on the reply: a quarter of it.
        let tight = ReplyOptions {
            max_bytes: 1000,
            ..ReplyOptions::default()
        };
        let room = Room::for_count(100, &tight, usize::MAX);
        assert_eq!(room.items(16), 250 / 16);
        // No more than the bytes the lines read so far have earned.
        let earned = Room::for_count(100, &options, 160);
        assert_eq!(earned.items(16), 10);
        assert_eq!(room.text(39), 6 * 40);
        assert!(room.text(39) <= tight.max_bytes / 4);
        // A zero-sized value takes no room: as many as the rows.
        assert_eq!(room.items(0), 100);
    }
}
