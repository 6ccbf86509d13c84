//! The search agent with a model: it reads the vault with the read-only
//! tools and answers in markdown citing `path:line`; citations are checked.

use knower_llm::Llm;
use knower_llm::chat::ChatMessage;

use crate::agents::Agents;
use crate::citations::check_citations;
use crate::context;
use crate::error::{Error, Result};
use crate::llm::run::{self, Bounds, Stop};
use crate::prompts;
use crate::report::Answer;
use crate::tools::ReadTools;

impl Agents {
    pub(crate) fn llm_ask(&self, llm: &Llm, question: &str) -> Result<Answer> {
        let system = self.system_prompt("search");
        let mut tools = ReadTools::new(self.vault.clone(), self.index.clone());
        let bounds = Bounds {
            max_steps: self.settings.max_search_steps,
            max_tokens: self.settings.max_tokens,
        };
        let vault = self.vault.clone();
        let check = move |text: &str, _: &[String]| check_citations(&vault, text).map(|_| ());
        let run = run::run(
            llm,
            system,
            ChatMessage::user(question),
            &mut tools,
            bounds,
            &check,
        );
        let markdown = match (run.final_text, run.error, run.stopped) {
            (Some(text), _, _) => text,
            (None, Some(e), _) => return Err(e.into()),
            (None, None, stop) => {
                return Err(Error::Invalid(format!(
                    "the search agent stopped at its {} bound before answering",
                    if stop == Some(Stop::Tokens) {
                        "token"
                    } else {
                        "step"
                    }
                )));
            }
        };
        let sources = check_citations(&self.vault, &markdown).unwrap_or_default();
        Ok(Answer {
            engine: llm.label(),
            found: !sources.is_empty(),
            markdown,
            sources,
            usage: Some(run.usage),
        })
    }

    /// The prompt, then the start-up context (most stable first), then
    /// the date: a prefix providers can cache up to what changes.
    pub(crate) fn system_prompt(&self, name: &str) -> String {
        let prompt = prompts::get(&self.vault, name);
        format!(
            "{}\n\n# The vault\n\n{}Today is {}.",
            prompt.text,
            context::startup(&self.vault),
            self.today()
        )
    }
}
