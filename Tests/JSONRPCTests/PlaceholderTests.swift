import Testing
@Test func placeholderJSONRPC() { #expect(1 + 1 == 2) }
