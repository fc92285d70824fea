import Testing
@Test func placeholderPhotoWorker() { #expect(1 + 1 == 2) }
