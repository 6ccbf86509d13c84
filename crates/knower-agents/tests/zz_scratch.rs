#[test]
fn show() {
    for t in std::fs::read_to_string("/tmp/kinds.txt").unwrap().lines() {
        println!("{:?}\t{}", knower_agents::kind_of(t), t);
    }
}
