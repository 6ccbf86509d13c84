//! The one entry every update leaves in the global `changelog.md`, and
//! the ids and dates it carries.

use knower_vault::{Batch, Position};

use crate::agents::Agents;
use crate::error::Result;
use crate::recovery::CHANGELOG;
use crate::report::UpdateReport;
use crate::text::one_line;

impl Agents {
    /// The one global changelog entry of an update, in the update's change.
    pub(crate) fn log_to_changelog(&self, batch: &mut Batch, report: &UpdateReport) -> Result<()> {
        let entry = format!(
            "- {}: {} [{}]\n",
            self.today(),
            one_line(&report.summary),
            report.id
        );
        batch.append(CHANGELOG, &entry, Position::Top)?;
        Ok(())
    }
}
