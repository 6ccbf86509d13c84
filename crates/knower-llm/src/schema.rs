//! JSON Schemas every provider accepts. schemars writes the full dialect
//! (`"format": "uint"`, `$ref` into `$defs`, `oneOf` for enums with
//! descriptions, `"type": ["string", "null"]` for an `Option`), which strict
//! servers refuse (OpenAI's strict mode, llama.cpp's grammar converter,
//! Gemini): [`plain`] rewrites a schema into the subset they all take —
//! objects, arrays, strings, numbers, booleans, `enum`, `required`,
//! `description` — with the same meaning for valid input.

use schemars::JsonSchema;
use serde_json::{Map, Value};

/// The plain schema of `T`.
pub fn plain_schema<T: JsonSchema>() -> Value {
    let full = serde_json::to_value(schemars::schema_for!(T)).expect("schemas serialise");
    plain(&full)
}

/// `schema` in the plain subset: references inlined, formats dropped,
/// nullable types made optional, one-value alternatives made an `enum`.
pub fn plain(schema: &Value) -> Value {
    let defs = schema
        .get("$defs")
        .or_else(|| schema.get("definitions"))
        .cloned()
        .unwrap_or(Value::Null);
    let mut out = rewrite(schema, &defs, 0);
    if let Some(object) = out.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
    }
    out
}

/// How deep references are followed: a recursive type stops being
/// described there (as any value), rather than looping.
const MAX_DEPTH: usize = 12;

fn rewrite(node: &Value, defs: &Value, depth: usize) -> Value {
    let Some(map) = node.as_object() else {
        return node.clone();
    };
    if let Some(target) = map.get("$ref").and_then(Value::as_str) {
        let name = target.rsplit('/').next().unwrap_or_default();
        let mut resolved = match defs.get(name) {
            Some(def) if depth < MAX_DEPTH => rewrite(def, defs, depth + 1),
            _ => Value::Object(Map::new()),
        };
        // A description beside the reference is the field's own.
        if let (Some(description), Some(object)) =
            (map.get("description"), resolved.as_object_mut())
        {
            object.insert("description".into(), description.clone());
        }
        return resolved;
    }
    // `oneOf`/`anyOf` of constants (an enum whose variants have docs) is an
    // enum; `anyOf [T, null]` (an `Option<T>` field) is T.
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(alternatives)) = map.get(key) {
            let rest: Vec<&Value> = alternatives
                .iter()
                .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
                .collect();
            let constants: Option<Vec<Value>> = rest
                .iter()
                .map(|a| {
                    a.get("const").cloned().or_else(|| {
                        a.get("enum")
                            .and_then(Value::as_array)
                            .filter(|e| e.len() == 1)
                            .map(|e| e[0].clone())
                    })
                })
                .collect();
            let mut out = match (constants, rest.as_slice()) {
                (Some(values), _) if !values.is_empty() => {
                    let kind = if values.iter().all(Value::is_string) {
                        "string"
                    } else {
                        "integer"
                    };
                    serde_json::json!({"type": kind, "enum": values})
                }
                (_, [only]) => rewrite(only, defs, depth),
                // Real alternatives (a tagged enum's variants): `anyOf`,
                // which every provider takes (OpenAI's strict mode refuses
                // `oneOf`).
                _ => serde_json::json!({
                    "anyOf": rest.iter().map(|a| rewrite(a, defs, depth)).collect::<Vec<_>>()
                }),
            };
            if let (Some(description), Some(object)) = (map.get("description"), out.as_object_mut())
            {
                object.insert("description".into(), description.clone());
            }
            return out;
        }
    }
    let mut out = Map::new();
    for (key, value) in map {
        match key.as_str() {
            "$schema" | "$defs" | "definitions" | "title" | "format" | "default" | "examples"
            | "minimum" | "maximum" | "$id" => {}
            "type" => {
                // ["string", "null"] → "string": the field is optional instead.
                let kind = match value {
                    Value::Array(kinds) => kinds
                        .iter()
                        .find(|k| k.as_str() != Some("null"))
                        .cloned()
                        .unwrap_or(Value::from("string")),
                    other => other.clone(),
                };
                out.insert(key.clone(), kind);
            }
            "properties" => {
                let properties = value
                    .as_object()
                    .map(|props| {
                        props
                            .iter()
                            .map(|(name, prop)| (name.clone(), rewrite(prop, defs, depth)))
                            .collect::<Map<String, Value>>()
                    })
                    .unwrap_or_default();
                out.insert(key.clone(), Value::Object(properties));
            }
            "items" | "additionalProperties" if value.is_object() => {
                out.insert(key.clone(), rewrite(value, defs, depth));
            }
            "required" => {
                // A nullable field is optional, whatever schemars said.
                let nullable = |name: &str| {
                    map.get("properties")
                        .and_then(|p| p.get(name))
                        .is_some_and(is_nullable)
                };
                let required: Vec<Value> = value
                    .as_array()
                    .map(|names| {
                        names
                            .iter()
                            .filter(|n| !n.as_str().is_some_and(nullable))
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default();
                out.insert(key.clone(), Value::Array(required));
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(out)
}

fn is_nullable(schema: &Value) -> bool {
    let null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
    match schema.get("type") {
        Some(Value::Array(kinds)) => kinds.iter().any(|k| k.as_str() == Some("null")),
        _ => ["anyOf", "oneOf"].iter().any(|key| {
            schema
                .get(*key)
                .and_then(Value::as_array)
                .is_some_and(|alternatives| alternatives.iter().any(null))
        }),
    }
}

/// Every keyword of `schema`, at any depth, is one of the plain subset's.
pub fn is_plain(schema: &Value) -> bool {
    const PLAIN: [&str; 9] = [
        "anyOf",
        "type",
        "properties",
        "required",
        "items",
        "enum",
        "description",
        "additionalProperties",
        "const",
    ];
    match schema {
        Value::Object(map) => map.iter().all(|(key, value)| {
            PLAIN.contains(&key.as_str())
                && match key.as_str() {
                    "properties" => value.as_object().is_some_and(|p| p.values().all(is_plain)),
                    "items" => is_plain(value),
                    "anyOf" => value.as_array().is_some_and(|a| a.iter().all(is_plain)),
                    "additionalProperties" => value.is_boolean() || is_plain(value),
                    "type" => value.is_string(),
                    _ => true,
                }
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    enum Outcome {
        /// Filed in the vault.
        Filed,
        /// Left for the user.
        Inbox,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Inner {
        line: u32,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Final {
        outcome: Outcome,
        /// How many.
        count: usize,
        note: Option<String>,
        inner: Inner,
        lines: Vec<Inner>,
    }

    #[test]
    fn what_strict_servers_refuse_is_rewritten() {
        let full = serde_json::to_value(schemars::schema_for!(Final)).unwrap();
        let text = full.to_string();
        assert!(text.contains("$ref") && text.contains("uint") && text.contains("null"));
        let schema = plain_schema::<Final>();
        assert!(is_plain(&schema), "{schema:#}");
        let text = schema.to_string();
        for refused in [
            "$ref", "$defs", "format", "oneOf", "anyOf", "null", "minimum",
        ] {
            assert!(!text.contains(refused), "{refused} in {text}");
        }
        assert_eq!(
            schema["properties"]["outcome"]["enum"],
            serde_json::json!(["Filed", "Inbox"])
        );
        assert_eq!(schema["properties"]["count"]["description"], "How many.");
        assert_eq!(schema["properties"]["lines"]["items"]["type"], "object");
        let required = schema["required"].as_array().unwrap();
        assert!(!required.contains(&Value::from("note")), "{required:?}");
        assert!(required.contains(&Value::from("inner")));
    }

    #[test]
    fn a_tagged_enum_is_any_of_its_variants() {
        #[allow(dead_code)]
        #[derive(Deserialize, JsonSchema)]
        #[serde(tag = "action", rename_all = "lowercase")]
        enum Action {
            Create { summary: String, count: Option<u8> },
            Resolve { effort: String },
        }
        let schema = plain_schema::<Action>();
        assert!(is_plain(&schema), "{schema:#}");
        let variants = schema["anyOf"].as_array().expect("anyOf");
        assert_eq!(variants.len(), 2);
        assert_eq!(variants[0]["properties"]["action"]["const"], "create");
        assert!(!schema.to_string().contains("oneOf"));
    }

    #[test]
    fn recursion_ends() {
        #[allow(dead_code)]
        #[derive(Deserialize, JsonSchema)]
        struct Tree {
            children: Vec<Tree>,
        }
        let schema = plain_schema::<Tree>();
        assert!(schema.to_string().len() < 20_000);
    }
}
