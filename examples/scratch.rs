fn main() {
    let cases = [
        "Sure! Here is the analysis:\n```toon\ncompliance_status: NON_COMPLIANT\nviolations[3]{category,severity,description}:\n  privacy,HIGH,\"Stores data, unencrypted\"\n  safety,LOW,Missing label\n```\nLet me know!",
        "<think>\nThe user wants TOON.\n</think>\nviolations[2]{a,b}\n    1,x\n    2,y",
        "    status: OK\n    items[2]:\n        - a\n        - b",
        "violations[2]:\n  category: privacy\n  severity: HIGH\n  category: safety\n  severity: LOW",
        "violations[3]{a,b}:\n  1,x\n\n  2,y\n  oops\n  3,z",
        "```json\n{\"country\": \"France\", \"capital\": \"Paris\"}\n```",
        "{ \"country\": \"FRANCE\", \"capital\": \"Paris }",
        "a:\n    b: 1\n  c: 2",
        "items[9]{id,name}:\n  1,\"Ada\n",
        "rules[0]:",
        "<think>only thinking</think>",
        "x[20]{a,b}:\n  1,loop\n  1,loop\n  1,loop\n  1,loop\n  1,lo\"",
    ];
    for c in cases {
        println!("----\n{c}\n=> {:?}", toon_core::decode_reply_with_report(c).map(|r| (r.value.to_string(), r.repairs.iter().map(|r| r.to_string()).collect::<Vec<_>>())).map_err(|e| e.to_string()));
    }
}
