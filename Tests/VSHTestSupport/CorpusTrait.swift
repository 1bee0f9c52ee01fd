// vsh-fuzz links this library in release builds, where the toolchain has no Testing module.
#if canImport(Testing)
    public import Testing

    extension Trait where Self == ConditionTrait {
        /// On a test that reads the conformance corpus: it runs when the corpus is there or `VSH_CORPUS`
        /// is set, and is otherwise skipped with a word on how to get the corpus (`make test` lists them).
        public static var needsCorpus: Self {
            .enabled(
                if: TestSupport.corpusExpected,
                "conformance corpus not found: `make corpus` fetches it into corpus/, or set VSH_CORPUS")
        }
    }
#endif
