import Testing
@Test func placeholderImaging() { #expect(1 + 1 == 2) }
