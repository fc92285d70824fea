import Testing
@Test func placeholderEndToEnd() { #expect(1 + 1 == 2) }
