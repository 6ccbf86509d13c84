//! The routing rules, each on the texts it is for.

use super::*;
use crate::offline::content::units_of_a_rate;
use crate::offline::route::first_person::of_who_i_am;
use crate::offline::route::projects::without_an_everyday_task_verb;

#[test]
fn an_age_is_told_by_a_number_alone() {
    for age in ["I'm 38", "I am 52 years old", "i'm 40 now"] {
        assert!(tells_an_age(&age.to_lowercase()), "{age}");
    }
    for other in ["I'm 38 minutes late", "I'm fine", "My son is 9"] {
        assert!(!tells_an_age(&other.to_lowercase()), "{other}");
    }
}

#[test]
fn a_fault_that_keeps_happening_holds_only_at_times() {
    assert_eq!(
        how_i_do_something("i keep lifting my head off the stock"),
        Some("i keep")
    );
    assert_eq!(how_i_do_something("i'm colour blind"), None);
    // So does a symptom at a time of day, not a day's routine.
    assert_eq!(
        how_i_do_something("i wake up with a headache most mornings"),
        Some("most mornings")
    );
    assert_eq!(how_i_do_something("i leave by half four every day"), None);
    assert_eq!(
        how_i_do_something("i drop my right hand every time i jab"),
        Some("every time")
    );
    // Where a piece of work stands holds for now.
    assert_eq!(
        how_i_do_something("i don't know who the killer is yet"),
        Some("yet")
    );
    // A taste stays the user's whatever the condition.
    assert_eq!(how_i_do_something("i keep saying i prefer tea"), None);
    // So much of something done is a condition; a time of day is not.
    for text in [
        "i can't eat gels after four hours without feeling sick",
        "i get motion sick after about an hour in the rig",
        "i cramp after anything over forty lengths",
    ] {
        assert_eq!(how_i_do_something(text), Some("after"), "{text}");
    }
    assert_eq!(how_i_do_something("i don't drink coffee after 2 pm"), None);
    assert_eq!(how_i_do_something("i moved here after my divorce"), None);
}

#[test]
fn the_people_in_the_users_life_include_in_laws() {
    assert!(of_who_i_am("my mother-in-law lives with us"));
    assert!(of_who_i_am("my twins are seven"));
    assert!(of_who_i_am("my sister lives in leeds"));
    assert!(of_who_i_am("my best friend is called hannah"));
    assert!(of_who_i_am("my younger brother's a nurse"));
    assert!(of_who_i_am("my grandson is called leo"));
    assert!(of_who_i_am(
        "my great-grandfather was a keeper on the wolf rock"
    ));
    assert!(of_who_i_am("my great-great-aunt ran the post office"));
    assert!(of_who_i_am("my dentist is dr haddad on elm road"));
    // Who someone is to the user still holds when it says "still".
    assert!(of_who_i_am("maya is my niece and she still signs slowly"));
    // So does where the user comes from.
    let origin = "i grew up in swansea and my parents still live there";
    assert!(of_who_i_am(origin));
    assert_eq!(how_i_do_something(origin), None);
    assert!(!of_who_i_am("my tyres are too narrow"));
}

#[test]
fn what_someone_meant_says_nothing_of_what_it_is_about() {
    assert!(content_words("Ask them what they meant").is_empty());
    // "Reckon" is "think"; "rather" says how much, not what.
    assert_eq!(content_words("Go with whatever the lads reckon"), ["lad"]);
    assert_eq!(content_words("I'd rather not fly"), ["fli"]);
    // Nor does "far" in "so far" or "as far as I know".
    assert_eq!(
        content_words("There's no deadline on it as far as I know"),
        ["deadlin"]
    );
    // Nor does how much, "half" a thing or at "half seven".
    assert_eq!(
        content_words("Ask the caretaker to open up at half seven"),
        ["caretak", "open"]
    );
    assert_eq!(
        content_words("The gullet needs to be half a size wider"),
        ["gullet", "size", "wider"]
    );
    // Nor do a pronoun's or a verb's contractions, nor "us".
    assert_eq!(
        content_words("Ask the club if they've got room for us"),
        ["club", "room"]
    );
    assert_eq!(
        content_words("The auctioneer confirmed he'll do it"),
        ["auction", "confirm"]
    );
    assert_eq!(content_words("They haven't paid"), ["paid"]);
    assert!(content_words("It means the same").is_empty());
    // Nor does running out: the supply is what it is about.
    assert_eq!(
        content_words("We run out of tinned fish every week"),
        ["fish", "tin"]
    );
    assert_eq!(content_words("Run the hill reps"), ["hill", "rep", "run"]);
    // Nor does how little the user minds: the care is no care plan's.
    assert_eq!(
        content_words("Toss a coin for all I care"),
        ["coin", "toss"]
    );
    assert_eq!(content_words("Review the care plan"), ["care", "review"]);
    // What is left, and on which side, says nothing of what either is.
    assert_eq!(
        content_words("The buyers want the shed left"),
        ["buyer", "shed"]
    );
    assert_eq!(
        content_words("My left hand is weaker on the fills"),
        ["fill", "hand", "weaker"]
    );
    // How a thing fits says nothing of what it is, as "put" does not;
    // a fit that is a thing does.
    assert_eq!(content_words("Fitted the roof vent"), ["roof", "vent"]);
    assert_eq!(
        content_words("The signwriter can't fit us in"),
        ["signwrit"]
    );
    assert_eq!(
        content_words("Choose a desk that fits under the window"),
        ["choos", "desk", "window"]
    );
    assert_eq!(
        content_words("The judges mark the fit of the heels"),
        ["heel", "judg", "mark"]
    );
    assert_eq!(content_words("Get a bike fit done"), ["bike", "fit"]);
    assert_eq!(
        content_words("Dry-fitted the first flight on site"),
        ["dri", "flight", "site"]
    );
    assert_eq!(
        content_words("The fit-out contractor"),
        ["contractor", "fit"]
    );
    // Nor how often or by when, "every" and "yet" as "soon" and "now".
    assert!(content_words("I'd rather not say yet").is_empty());
    assert_eq!(
        content_words("Weigh her every morning before flying"),
        ["fli", "weigh"]
    );
    // A thought is as vague as an idea.
    assert!(content_words("that thought").is_empty());
    // Prepositions say nothing of what a note is about.
    assert_eq!(
        content_words("Pick the blackberries along the canal"),
        ["blackberri", "canal", "pick"]
    );
    // So do the nouns of prepositions in several words, not the same
    // nouns elsewhere ("froze" is read as its verb, "freeze").
    assert_eq!(
        content_words("Froze in front of the group instead of improvising"),
        ["freez", "group", "improvis"]
    );
    assert_eq!(
        content_words("Sand the front door"),
        ["door", "front", "sand"]
    );
    // Counts and dates tie nothing to a project, nor does a holiday
    // told as a time, as "March" and "summer" are, but one that says
    // what a thing is for does.
    assert!(content_words("Came 14th out of 40, the 3rd time").is_empty());
    // Nor do counts in words, the teens and tens included.
    assert_eq!(
        content_words("She wants to take all forty of her houseplants"),
        ["housepl"]
    );
    assert!(content_words("twenty-two, fifteen or seventy thousand").is_empty());
    assert_eq!(
        content_words("Swapped Christmas Eve with Priya"),
        ["priya", "swap"]
    );
    assert_eq!(
        content_words("Find cover for the night shifts over Christmas"),
        ["cover", "shift"]
    );
    assert_eq!(
        content_words("Put up posters for the Christmas collection"),
        ["christma", "collect", "poster"]
    );
    assert_eq!(content_words("Service the 4x4"), ["4x4", "servic"]);
    // No one, nowhere and no thing are as vague as someone,
    // somewhere and something.
    assert_eq!(
        content_words("Nobody else has commit rights"),
        ["commit", "right"]
    );
    assert_eq!(content_words("Nothing to put the bikes in"), ["bike"]);
}

#[test]
fn a_verb_done_to_a_pronoun_says_nothing_of_what() {
    let done = |text: &str| only_done_to_a_pronoun(text, &content_words(text));
    assert_eq!(done("Let's leave it for now").as_deref(), Some("leave it"));
    assert_eq!(
        done("We'll repaint them after the holidays").as_deref(),
        Some("repaint them")
    );
    // A word that names something places the text.
    assert_eq!(done("Leave it to soak overnight"), None);
    assert_eq!(done("Paint them white"), None);
    assert_eq!(done("Let's leave the hedge for now"), None);
}

#[test]
fn the_unit_of_a_rate_is_no_content_word() {
    for (text, unit) in [
        ("tom can manage about sixty kilometres a day", "day"),
        ("swimming three times a week", "week"),
        ("two lessons per month", "month"),
        ("she feeds him twice a night", "night"),
    ] {
        assert_eq!(units_of_a_rate(text), whole_words(unit), "{text}");
        assert!(
            !content_words(text).contains(&whole_words(unit)[0]),
            "{text}"
        );
    }
    for text in [
        "a day out at the zoo",
        "book a week in cornwall",
        "spend a day on it",
    ] {
        assert!(units_of_a_rate(text).is_empty(), "{text}");
    }
    // Nor does the unit name a project it is the last word of.
    let projects = [Project {
        name: "volunteer-days".into(),
        names: vec!["volunteer days".into(), "volunteer-days".into()],
    }];
    let rate = "Tom can manage about sixty kilometres a day";
    assert!(names_used(rate, &projects).is_empty());
    assert!(!names_used("Plan a day of digging", &projects).is_empty());
}

#[test]
fn a_task_items_everyday_opening_verb_is_not_held() {
    assert_eq!(
        without_an_everyday_task_verb("- [ ] Line the beds with weed membrane"),
        "the beds with weed membrane"
    );
    assert_eq!(
        without_an_everyday_task_verb("- [ ] Work out where we can moor"),
        "out where we can moor"
    );
    // A verb of the project's own, a line that is no task item.
    for line in [
        "- [ ] Rehearse the second movement",
        "Line dancing on Fridays",
        "- 2026-06-15: Lined the beds",
    ] {
        assert_eq!(without_an_everyday_task_verb(line), line);
    }
}

#[test]
fn a_reply_opens_with_its_word_or_a_pronoun_for_what_was_said() {
    for (text, opening) in [
        ("fine, as long as it's soon", "fine"),
        ("fine by me", "fine"),
        ("fair enough", "fair"),
        ("sure", "sure"),
        ("that's fine by me", "that's"),
        ("whoever's free", "whoever's"),
        ("that sounds right to me", "that"),
        ("works for me, go ahead", "works"),
        ("sounds good", "sounds"),
        ("suits me", "suits"),
    ] {
        assert_eq!(answers_what_is_unsaid(text), Some(opening), "{text}");
    }
    for text in [
        "fine sand on the top layer",
        "no rush on the tiles",
        "right hand drive only",
        "this week's shifts are long",
        "that van is free on sundays",
        "works start on monday",
        "looks like rain for the show",
    ] {
        assert_eq!(answers_what_is_unsaid(text), None, "{text}");
    }
    // The user going along with what was asked, which tells nothing
    // of who they are.
    assert_eq!(goes_along("i'm easy"), Some("i'm easy"));
    assert_eq!(goes_along("i'm in, whatever day suits"), Some("i'm in"));
    for text in ["i'm in leeds", "i'm easy to please", "i'm vegetarian"] {
        assert_eq!(goes_along(text), None, "{text}");
    }
}

#[test]
fn a_vague_word_that_names_a_project_counts_after_a_determiner() {
    let projects = [Project {
        name: "conference-talk".into(),
        names: vec!["conference talk".into(), "conference-talk".into()],
    }];
    let words = |text: &str| with_names_used(content_words(text), &names_used(text, &projects));
    let named = words("Gave a dry run of the talk to the team");
    assert!(named.contains(&"talk".to_string()), "{named:?}");
    // So after one word that tells which.
    let which = words("The afternoon talk clashes with the sea lion feed");
    assert!(which.contains(&"talk".to_string()), "{which:?}");
    let aside = words("Ask the team to talk it through");
    assert!(!aside.contains(&"talk".to_string()), "{aside:?}");
    // As a verb it names nothing.
    let verb = words("Talk to Sam about the budget");
    assert!(!verb.contains(&"talk".to_string()), "{verb:?}");
    // Nor does a vague word no project is named by.
    let other = words("Gave a dry run of the plan");
    assert!(!other.contains(&"plan".to_string()), "{other:?}");
    // Nor a word of the name that is not the one it is called by.
    let projects = [Project {
        name: "new-xray".into(),
        names: vec!["new xray".into(), "new-xray".into()],
    }];
    let words = |text: &str| with_names_used(content_words(text), &names_used(text, &projects));
    let modifier = words("Register to vote at the new address");
    assert!(!modifier.contains(&"new".to_string()), "{modifier:?}");
    // The last word as written, whatever its place in the alphabet.
    let projects = [Project {
        name: "new-branch".into(),
        names: vec!["new branch".into(), "new-branch".into()],
    }];
    let words = |text: &str| with_names_used(content_words(text), &names_used(text, &projects));
    let modifier = words("We need a new wicketkeeper for next season");
    assert!(!modifier.contains(&"new".to_string()), "{modifier:?}");
    let called = words("The branch opens in June");
    assert!(called.contains(&"branch".to_string()), "{called:?}");
    // A place named with the word is no name of the project's.
    let projects = [Project {
        name: "ev-switch".into(),
        names: vec!["electric car".into(), "ev switch".into()],
    }];
    let used = names_used("Practise reverse parking in the Tesco car park", &projects);
    assert!(used.is_empty(), "{used:?}");
    assert!(!names_used("Charge the car overnight", &projects).is_empty());
}

#[test]
fn a_task_that_is_its_verb_alone_is_about_what_the_verb_says() {
    assert_eq!(what_the_verb_says("Worm them all in the spring"), ["worm"]);
    assert!(what_the_verb_says("Check on it again next week").is_empty());
    assert!(what_the_verb_says("Leave it with them").is_empty());
    assert!(what_the_verb_says("Sort it out when you can").is_empty());
}

#[test]
fn a_feeling_about_a_pronoun_names_nothing() {
    assert_eq!(
        feels_about_a_pronoun("i'm in two minds about it").as_deref(),
        Some("about it")
    );
    assert_eq!(
        feels_about_a_pronoun("i'm fed up with them").as_deref(),
        Some("with them")
    );
    assert_eq!(feels_about_a_pronoun("i'm allergic to peanuts"), None);
    assert_eq!(
        feels_about_a_pronoun("i'm in two minds about the van"),
        None
    );
}

#[test]
fn options_weighed_are_told_from_questions_asked() {
    assert!(weighs_options(
        "either the van or the website gets my saturday"
    ));
    assert!(weighs_options(
        "not sure whether the fair or the telescope comes first"
    ));
    assert!(weighs_options(
        "the bathroom or the hotel, whichever is cheaper"
    ));
    assert!(!weighs_options(
        "ask the installer whether the battery fits"
    ));
    assert!(weighs_options(
        "the canoe or the speech this weekend, can’t do both"
    ));
    assert!(!weighs_options("the van or the bike needs a service"));
    assert!(!weighs_options("can't do both coats before it rains"));
    // Options left unnamed are weighed too.
    assert!(weighs_options("either's fine, you pick"));
    assert!(weighs_options("works for me either way"));
    assert!(!weighs_options(
        "pacers finish within a minute either side of the time"
    ));
}

#[test]
fn text_that_points_elsewhere_is_recognised() {
    assert_eq!(
        refers_elsewhere("i'd rather wait and see what they say").as_deref(),
        Some("what they say")
    );
    assert_eq!(
        refers_elsewhere("same story as last year").as_deref(),
        Some("same story as")
    );
    assert_eq!(
        refers_elsewhere("do the same for the garage").as_deref(),
        Some("do the same")
    );
    assert_eq!(
        refers_elsewhere("send them the same reminder email as the v1 one").as_deref(),
        Some("same reminder email as")
    );
    assert_eq!(refers_elsewhere("red and green look the same to me"), None);
    // "Per my last email" points at the email; "per my physio" says
    // whose word it is.
    assert_eq!(
        refers_elsewhere("per my last message, the hall is fine").as_deref(),
        Some("per my last")
    );
    assert_eq!(
        refers_elsewhere("per my physio, no running for a fortnight"),
        None
    );
    assert_eq!(
        refers_elsewhere("the same three people came again as well"),
        None
    );
}

#[test]
fn a_thing_left_unsaid_is_referential() {
    assert_eq!(
        refers_elsewhere("remind me about the thing with peter").as_deref(),
        Some("the thing")
    );
    assert_eq!(
        refers_elsewhere("the thing is, the boiler is too small"),
        None
    );
    assert_eq!(
        refers_elsewhere("remind me what we agreed").as_deref(),
        Some("what we agreed")
    );
    assert_eq!(
        refers_elsewhere("sort out the usual before the weekend").as_deref(),
        Some("the usual")
    );
    assert_eq!(refers_elsewhere("training as usual on wednesday"), None);
    // A place only the writer can see.
    assert_eq!(
        refers_elsewhere("it's too cold to train in there before eight").as_deref(),
        Some("in there")
    );
    assert_eq!(refers_elsewhere("put the mats in the garage"), None);
}
