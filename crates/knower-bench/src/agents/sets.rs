//! The labelled routing sets, in the order they were written.
//!
//! Each held-out set is a folder `sequenceN/` holding `sequenceN.tsv` and the
//! vault it is sent to. Sets written together, on the same rules, share one
//! entry here, so a new batch is one entry, and what each set was held out
//! from stays said beside it (the report prints it with the set's figures).

use super::Run;

/// The first sets, each with its own story.
const FIRST: &[(&str, &str, Run)] = &[
    ("notes.tsv", "the set the rules were tuned on", Run::Alone),
    (
        "holdout.tsv",
        "held out: written after the first tuning, never tuned on",
        Run::Alone,
    ),
    (
        "sequence/sequence.tsv",
        "held out: written for issue 19 before its rule changes, never tuned on; sent one after another",
        Run::InSequence,
    ),
];

/// Batches of held-out sets, `sequence{first}` to `sequence{last}`, with
/// what they were held out from. All are sent one after another.
const BATCHES: &[(u32, u32, &str)] = &[
    (
        2,
        2,
        "held out: written for issue 19's second round before its rule changes, never tuned on; sent one after another",
    ),
    (
        3,
        3,
        "held out: written for issue 19's third round before its rule changes, never tuned on; sent one after another",
    ),
    (
        4,
        4,
        "held out: written for issue 19's fourth round before its rule changes, never tuned on; sent one after another",
    ),
    (
        5,
        5,
        "held out: written with sequence4, run only after the fourth round's changes, never tuned on; sent one after another",
    ),
    (
        6,
        6,
        "held out: written after sequence5 was read, run only after the changes it led to, never tuned on; sent one after another",
    ),
    (
        7,
        7,
        "held out: written after sequence6 was read, run only after the changes it led to, never tuned on; sent one after another",
    ),
    (
        8,
        8,
        "held out: written after sequence7 was read, run only after the changes it led to, never tuned on; sent one after another",
    ),
    (
        9,
        9,
        "held out: written after sequence8 was read, run only after the changes it led to, never tuned on; sent one after another",
    ),
    (
        10,
        10,
        "held out: written after sequence9 was read, run only after the changes it led to, never tuned on; sent one after another",
    ),
    (
        11,
        11,
        "held out: written after sequence10 was read, run only after the changes it led to, never tuned on; sent one after another",
    ),
    (
        12,
        12,
        "held out: written after sequence11 was read, run only after the changes it led to, never tuned on; sent one after another",
    ),
    (
        13,
        13,
        "held out: written after sequence12 was read, run only after the changes it led to, never tuned on; sent one after another",
    ),
    (
        14,
        14,
        "held out: written after sequence13 was read, run only after the changes it led to, never tuned on; sent one after another",
    ),
    (
        15,
        15,
        "held out: written after sequence14 was read, run only after the changes it led to, never tuned on; sent one after another",
    ),
    (
        16,
        16,
        "held out: written after sequence15 was read, run only after the changes it led to, never tuned on; sent one after another",
    ),
    (
        17,
        17,
        "held out: written after sequence16, before any later change, and run once on the rules as they were; sent one after another",
    ),
    (
        18,
        18,
        "held out: written after sequence17 was read, run only after the changes it led to, never tuned on; sent one after another",
    ),
    (
        19,
        19,
        "held out: written after sequence18 was read, run once on round sixteen's rules (the change it was written for was not kept), never tuned on; sent one after another",
    ),
    (
        20,
        20,
        "held out: written after sequence19, before any later change, and run once on round sixteen's rules; sent one after another",
    ),
    (
        21,
        21,
        "held out: written after sequence20 was read, run only after the changes it led to, never tuned on; sent one after another",
    ),
    (
        22,
        22,
        "held out: written after sequence21 was read, run only after the changes it led to, never tuned on; sent one after another",
    ),
    (
        23,
        23,
        "held out: written after sequence22 was read, run only after the change it was written for, never tuned on; sent one after another",
    ),
    (
        24,
        24,
        "held out: written after sequence23 was read, run on the rules as they were, never tuned on; sent one after another",
    ),
    (
        25,
        25,
        "held out: written after sequence24 was read, run on the rules as they were (the change it was written for was not kept), never tuned on; sent one after another",
    ),
    (
        26,
        26,
        "held out: written after sequence25 was read, run before and once after the change it was written for (the everyday errands), never tuned on; sent one after another",
    ),
    (
        27,
        27,
        "held out: written after sequence26 was read, run on the errand rule (the two changes it was written for were not kept), never tuned on; sent one after another",
    ),
    (
        28,
        28,
        "held out: written after sequence27 was read, run on the errand rule (the change it was written for was not kept), never tuned on; sent one after another",
    ),
    (
        29,
        29,
        "held out: written after sequence28 was read, run before and after round twenty's kind rules, never tuned on; sent one after another",
    ),
    (
        30,
        30,
        "held out: written after sequence29 was read, before the rule it was written for (first-person facts that may be a project's), never tuned on; sent one after another",
    ),
    (
        31,
        31,
        "held out: written after sequence30 was read, run before and after round twenty-two (a fainter meaning may file), never tuned on; sent one after another",
    ),
    (
        32,
        32,
        "held out: written after sequence31 was read, before round twenty-three, never tuned on; sent one after another",
    ),
    (
        33,
        33,
        "held out: written after sequence32 was read, before round twenty-four, never tuned on; sent one after another",
    ),
    (
        34,
        34,
        "held out: written after round twenty-four, run once on its rules, never tuned on; sent one after another",
    ),
    (
        35,
        35,
        "held out: written after sequence34 was read and its rule committed, run once on those rules, never tuned on; sent one after another",
    ),
    (
        36,
        36,
        "held out: written after sequence35's first run, before the dictionary's definitions were measured, run once on them, never tuned on; sent one after another",
    ),
    (
        37,
        37,
        "held out: written after sequence36's first run was read, before the rules it led to, run once on them, never tuned on; sent one after another",
    ),
    (
        38,
        38,
        "held out: written after sequence37's first run was read, before the rules it led to, run once on them, never tuned on; sent one after another",
    ),
    (
        39,
        39,
        "held out: written after sequence38's first run was read, before all-mpnet-base-v2 was tried for routing, run once in each mode on the rules as they were, never tuned on; sent one after another",
    ),
    (
        40,
        40,
        "held out: written after sequence39's first run was read, before the rules of the round that follows, run once in each mode on the rules as they were, never tuned on; sent one after another",
    ),
    (
        41,
        41,
        "held out: written after sequence40's first run was read, before the rules it led to, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        42,
        42,
        "held out: written after sequence41's first run was read, before the rules it led to, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        43,
        43,
        "held out: written after sequence42's first run was read, with no rule changed after it, run once on round twenty-six's final rules in each mode, never tuned on; sent one after another",
    ),
    (
        44,
        44,
        "held out: written after sequence43's first run was read, before the rules it led to, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        45,
        45,
        "held out: written after sequence44's first run was read, before the rules it led to, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        46,
        46,
        "held out: work projects, written after sequence45 was read and before any rule of round twenty-seven, run once on the rules of its time in each mode, never tuned on; sent one after another",
    ),
    (
        47,
        47,
        "held out: a research student's work projects, written after sequence45 was read and before any rule of round twenty-seven, run once on the rules of its time in each mode, never tuned on; sent one after another",
    ),
    (
        48,
        48,
        "held out: a freelancer's work and a person's own projects, written after sequence45 was read and before any rule of round twenty-seven, run once on the rules of its time in each mode, never tuned on; sent one after another",
    ),
    (
        49,
        49,
        "held out: a small company's work and a person's own project, written after round twenty-seven's rules were committed and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        50,
        50,
        "held out: a person's own projects and an open-source one, written after round twenty-seven's rules were committed and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        51,
        52,
        "held out: work and a person's own projects, written after the kind rules of d987a7e and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        53,
        53,
        "held out: work and a person's own projects, written after round twenty-seven's last rule (973ec83), run once on it in each mode, never tuned on; sent one after another",
    ),
    (
        54,
        57,
        "held out: work and a person's own projects, written after round twenty-seven's rules (8a1e79a) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        58,
        59,
        "held out: work and a person's own projects, written after round twenty-eight's rules (46f0eca) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        60,
        63,
        "held out: work and a person's own projects, written after round twenty-eight's rules (46f0eca, af4f4cf) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        64,
        65,
        "held out: work and a person's own projects, written after round twenty-nine's rules and before they were run on it, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        66,
        71,
        "held out: work and a person's own projects, written after round thirty's rules (f271ffe) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        72,
        73,
        "held out: work and a person's own projects, written after round thirty-one's rules (6a9a1f7) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        74,
        79,
        "held out: work and a person's own projects, written after round thirty-two's rules (4e129d5) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        80,
        85,
        "held out: work and a person's own projects, written after round thirty-three's rules (029f1ac) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        86,
        87,
        "held out: work and a person's own projects, written after round thirty-four's rules (9fc3263) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        88,
        89,
        "held out: work and a person's own projects, written after round thirty-five's rules (848cc4c) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        90,
        93,
        "held out: work and a person's own projects, written after round thirty-six's rules (b48f024) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        94,
        97,
        "held out: work and a person's own projects, written after round thirty-seven's rules (ddb9b17) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        98,
        101,
        "held out: work and a person's own projects, written after round thirty-eight's rules (4392271) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        102,
        103,
        "held out: work and a person's own projects, written after round thirty-nine's rules (4cc82e4) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        104,
        107,
        "held out: work and a person's own projects, written on round thirty-nine's rules (e92648c) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        108,
        111,
        "held out: work and a person's own projects, written on round forty's rules (7d57423) and before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        112,
        115,
        "held out: work and a person's own projects, written on round forty-one's rules and the sentences' meaning (b26eeae), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        116,
        119,
        "held out: work and a person's own projects, written on round forty-two's rules and the sentences' meaning (36eaaf6), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        120,
        123,
        "held out: work and a person's own projects, written on round forty-three's rules (b18259c), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        124,
        127,
        "held out: work and a person's own projects, written on round forty-four's rules (b90fe66), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        128,
        131,
        "held out: work and a person's own projects, written on round forty-five's rules (bebf23b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        132,
        135,
        "held out: work and a person's own projects, written on round forty-six's rules (940c55e), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        136,
        139,
        "held out: work and a person's own projects, written on round forty-seven's rules (72306fe), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        140,
        143,
        "held out: work and a person's own projects, written on round forty-eight's rules (5b158dd), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        144,
        147,
        "held out: work and a person's own projects, written on round forty-nine's rules (fd03e03), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        148,
        151,
        "held out: work and a person's own projects, written on round fifty's rules (82571d4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        152,
        155,
        "held out: work and a person's own projects, written on round fifty-one's rules (82d4589), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        156,
        163,
        "held out: work and a person's own projects, written on round fifty-two's rules (e448ab4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        164,
        171,
        "held out: work and a person's own projects, written on round fifty-three's rules (4fea15b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        172,
        175,
        "held out: work and a person's own projects, written on round fifty-four's rules (8669775), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        176,
        179,
        "held out: work and a person's own projects, written on round fifty-five's rules (bdd569f), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        180,
        187,
        "held out: work and a person's own projects, written on round fifty-six's rules (64123cc), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        188,
        191,
        "held out: work and a person's own projects, written on round fifty-seven's rules (d101127), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        192,
        195,
        "held out: work and a person's own projects, written on round fifty-eight's rules (cf95075), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        196,
        199,
        "held out: work and a person's own projects, written on round fifty-nine's rules (d2ab346), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        200,
        203,
        "held out: work and a person's own projects, written on round sixty's rules (531b5ef), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        204,
        207,
        "held out: work and a person's own projects, written on round sixty-one's rules (f9a1d10), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        208,
        211,
        "held out: work and a person's own projects, written on round sixty-two's rules (861ed9d), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        212,
        215,
        "held out: work and a person's own projects, written on round sixty-three's rules (7f0a9a6), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        216,
        219,
        "held out: work and a person's own projects, written on round sixty-four's rules (cc64cb4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        220,
        223,
        "held out: work and a person's own projects, written on round sixty-five's rules (146c629), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        224,
        227,
        "held out: work and a person's own projects, written on round sixty-six's rules (0761c77), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        228,
        231,
        "held out: work and a person's own projects, written on round sixty-seven's rules (9676ede), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        232,
        235,
        "held out: work and a person's own projects, written on round sixty-eight's rules (629b1e3), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        236,
        239,
        "held out: work and a person's own projects, written on round sixty-nine's rules (e3d77d3), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        240,
        243,
        "held out: work and a person's own projects, written on round seventy's rules (8024247), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        244,
        247,
        "held out: work and a person's own projects, written on round seventy-one's rules (f6e6e7b), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        248,
        251,
        "held out: work and a person's own projects, written on round seventy-two's rules (8764bf4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        252,
        255,
        "held out: work and a person's own projects, written on round seventy-three's rules (c504147), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        256,
        259,
        "held out: work and a person's own projects, written on round seventy-four's rules (a1eb6f7), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        260,
        263,
        "held out: work and a person's own projects, written on round seventy-five's rules (960e97a), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        264,
        267,
        "held out: work and a person's own projects, written on round seventy-six's rules (cd6a27f), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        268,
        271,
        "held out: work and a person's own projects, written on round seventy-seven's rules (ef47095), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        272,
        275,
        "held out: work and a person's own projects, written on round seventy-eight's rules (ec2e2be), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        276,
        279,
        "held out: work and a person's own projects, written on round seventy-nine's rules (24093bb), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        280,
        283,
        "held out: work and a person's own projects, written on round eighty's rules (b469dcf), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        284,
        287,
        "held out: work and a person's own projects, written on round eighty-one's rules (e549eb6), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        288,
        291,
        "held out: work and a person's own projects, written on round eighty-two's rules (37288ef), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        292,
        295,
        "held out: work and a person's own projects, written on round eighty-three's rules (8b9b879), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        296,
        299,
        "held out: work and a person's own projects, written on round eighty-four's rules (4a4d84c), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        300,
        303,
        "held out: work and a person's own projects, written on round eighty-five's rules (3fb2fca), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        304,
        307,
        "held out: work and a person's own projects, written on round eighty-six's rules (79f9ae6), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        308,
        311,
        "held out: work and a person's own projects, written on round eighty-seven's rules (d9e565e), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        312,
        315,
        "held out: work and a person's own projects, written on round eighty-eight's rules (2e3d7c3), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        316,
        319,
        "held out: work and a person's own projects, written on round eighty-nine's rules (cc43e1c), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        320,
        323,
        "held out: work and a person's own projects, written on round ninety's rules (4927591), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        324,
        327,
        "held out: work and a person's own projects, written on round ninety-one's rules (b064eeb), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        328,
        331,
        "held out: work and a person's own projects, written on round ninety-two's rules (88087c0), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        332,
        335,
        "held out: work and a person's own projects, written on round ninety-three's rules (6829d53), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        336,
        339,
        "held out: work and a person's own projects, written on round ninety-four's rules (a32c6d1), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        340,
        343,
        "held out: work and a person's own projects, written on round ninety-five's rules (9b26ec3), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        344,
        347,
        "held out: work and a person's own projects, written on round ninety-six's rules (94660bc), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        348,
        351,
        "held out: work and a person's own projects, written on round ninety-seven's rules (9a57a96), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        352,
        355,
        "held out: work and a person's own projects, written on round ninety-eight's rules (241727c), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        356,
        359,
        "held out: work and a person's own projects, written on round ninety-nine's rules (146c8a4), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        360,
        363,
        "held out: work and a person's own projects, written on round one hundred's rules (75a5629), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        364,
        367,
        "held out: work and a person's own projects, written on round one hundred and one's rules (cce3db2), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        368,
        371,
        "held out: work and a person's own projects, written on round one hundred and two's rules (dcb4033), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        372,
        375,
        "held out: work and a person's own projects, written on round one hundred and three's rules (001358d), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        376,
        379,
        "held out: work and a person's own projects, written on round one hundred and four's rules (3a58443), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        380,
        383,
        "held out: work and a person's own projects, written on round one hundred and five's rules (e4c8752), before any later rule, run once on them in each mode, never tuned on; sent one after another",
    ),
    (
        384,
        387,
        "held out: work and a person's own projects, written on round one hundred and six's rules (76ba7c2), before any later rule, run once on them in each mode, then read for round one hundred and seven; sent one after another",
    ),
    (
        388,
        391,
        "held out: written with sequence384–387 on round one hundred and six's rules (76ba7c2), not run before round one hundred and seven was made, then once on the rules before it and once after, never tuned on; sent one after another",
    ),
];

/// Every set: its file under the routing fixtures, what it was held out
/// from, and how its updates meet the vault.
pub(super) fn all() -> Vec<(String, &'static str, Run)> {
    let first = FIRST
        .iter()
        .map(|&(file, about, run)| (file.to_string(), about, run));
    let batches = BATCHES.iter().flat_map(|&(first, last, about)| {
        (first..=last).map(move |n| {
            (
                format!("sequence{n}/sequence{n}.tsv"),
                about,
                Run::InSequence,
            )
        })
    });
    first.chain(batches).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    /// A batch that names a set not on disk, or a set folder no batch
    /// names, is a set that silently does not run.
    #[test]
    fn every_set_on_disk_is_listed_once_and_every_listed_set_is_on_disk() {
        let listed: Vec<String> = super::all().into_iter().map(|(file, ..)| file).collect();
        let unique: BTreeSet<&String> = listed.iter().collect();
        assert_eq!(unique.len(), listed.len(), "a set is listed twice");
        let root = Path::new(super::super::FIXTURE);
        for file in &listed {
            assert!(
                root.join(file).is_file(),
                "{file} is listed but not on disk"
            );
        }
        for entry in std::fs::read_dir(root).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if name.starts_with("sequence") {
                let file = format!("{name}/{name}.tsv");
                assert!(unique.contains(&file), "{file} is on disk but not listed");
            }
        }
    }
}
