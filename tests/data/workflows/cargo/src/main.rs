include!(concat!(env!("OUT_DIR"), "/answer.rs"));

fn main() {
    println!("{}", ANSWER);
}

#[cfg(test)]
mod tests {
    #[test]
    fn answer() {
        assert_eq!(super::ANSWER, 42);
    }
}
