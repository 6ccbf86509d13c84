//! Undo as `git revert` does it: the reverse of one change's own edits,
//! applied to the file as it is now. Lines the change added are taken out
//! wherever they now are; lines it removed are put back beside the line
//! that preceded them. Edits made since by anyone else stay. Only when the
//! change's own lines were themselves edited since (or their place is gone)
//! is there a conflict.

use similar::{Algorithm, DiffTag, capture_diff_slices};

/// `current` without the edits that turned `before` into `after`; `None`
/// when they cannot be taken back without touching lines changed since.
pub(crate) fn revert(before: &str, after: &str, current: &str) -> Option<String> {
    let before: Vec<&str> = before.split_inclusive('\n').collect();
    let after: Vec<&str> = after.split_inclusive('\n').collect();
    let mut lines: Vec<&str> = current.split_inclusive('\n').collect();
    let ops = capture_diff_slices(Algorithm::Myers, &before, &after);
    // The change's hunks, last first, so that earlier ones are found where
    // they were.
    let hunks: Vec<_> = ops
        .iter()
        .map(|op| op.as_tag_tuple())
        .filter(|(tag, _, _)| *tag != DiffTag::Equal)
        .collect();
    for (_, old, new) in hunks.into_iter().rev() {
        let added = &after[new.clone()];
        let removed = &before[old.clone()];
        // The lines around the hunk in `after`, to place it in `current`.
        let above = new.start.checked_sub(1).map(|i| after[i]);
        let below = after.get(new.end).copied();
        let at = if added.is_empty() {
            place_after(&lines, above, below)?
        } else {
            find_block(&lines, added, above, below)?
        };
        lines.splice(at..at + added.len(), removed.iter().copied());
    }
    Some(lines.concat())
}

/// Where `block` is in `lines`: its only occurrence, or the only one with
/// the hunk's neighbours around it.
fn find_block(
    lines: &[&str],
    block: &[&str],
    above: Option<&str>,
    below: Option<&str>,
) -> Option<usize> {
    let found: Vec<usize> = (0..=lines.len().checked_sub(block.len())?)
        .filter(|&i| lines[i..i + block.len()] == *block)
        .collect();
    match found.as_slice() {
        [only] => Some(*only),
        [] => None,
        many => {
            let fits: Vec<usize> = many
                .iter()
                .copied()
                .filter(|&i| {
                    above.is_none_or(|a| i > 0 && lines[i - 1] == a)
                        && below.is_none_or(|b| lines.get(i + block.len()) == Some(&b))
                })
                .collect();
            (fits.len() == 1).then(|| fits[0])
        }
    }
}

/// Where lines the change removed go back: after the line that preceded
/// them (it must be there once), or before the one that followed them, or
/// at the start when the change removed the first lines.
fn place_after(lines: &[&str], above: Option<&str>, below: Option<&str>) -> Option<usize> {
    let only = |wanted: &str| {
        let at: Vec<usize> = (0..lines.len()).filter(|&i| lines[i] == wanted).collect();
        (at.len() == 1).then(|| at[0])
    };
    match (above, below) {
        (Some(a), _) if only(a).is_some() => only(a).map(|i| i + 1),
        (_, Some(b)) if only(b).is_some() => only(b),
        (None, _) => Some(0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::revert;

    #[test]
    fn takes_back_its_own_line_and_keeps_newer_ones() {
        let before = "# Changelog\n\n- 21: a\n";
        let after = "# Changelog\n\n- 22: b\n- 21: a\n";
        let now = "# Changelog\n\n- 24: d\n- 23: c\n- 22: b\n- 21: a\n";
        assert_eq!(
            revert(before, after, now).unwrap(),
            "# Changelog\n\n- 24: d\n- 23: c\n- 21: a\n"
        );
    }

    #[test]
    fn puts_back_what_it_removed_beside_its_neighbour() {
        let before = "a\nb\nc\n";
        let after = "a\nc\n";
        let now = "a\nc\nd\n";
        assert_eq!(revert(before, after, now).unwrap(), "a\nb\nc\nd\n");
    }

    #[test]
    fn a_line_edited_since_is_a_conflict() {
        let before = "a\n";
        let after = "a\nb\n";
        assert_eq!(revert(before, after, "a\nb changed\n"), None);
        // Unchanged since: the plain reverse.
        assert_eq!(revert(before, after, after).unwrap(), before);
    }

    #[test]
    fn a_replaced_line_comes_back_in_place() {
        let before = "x\nold\ny\n";
        let after = "x\nnew\ny\n";
        let now = "top\nx\nnew\ny\nbottom\n";
        assert_eq!(
            revert(before, after, now).unwrap(),
            "top\nx\nold\ny\nbottom\n"
        );
    }
}
