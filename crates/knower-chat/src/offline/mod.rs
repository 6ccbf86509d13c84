//! The offline engine's chat: no model writes, so each exchange is read by
//! stated rules ([`interpret`]) and answered with what the memory holds
//! ([`reply`]): the chat's own conclusions that answer first, each cited,
//! then the lines of the vault's notes that answer.

mod interpret;
mod reply;

pub use interpret::{Reading, interpret, read};
pub use reply::reply;
