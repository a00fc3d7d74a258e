import Testing
@testable import ThreadfoldKit

@Suite("Listing renderer")
struct ListingRendererTests {
    @Test("the feed's candidates are the largest values and every value tied with the last of them")
    func top() {
        let values: [Int64] = [5, 9, 7, 7, 1, 7, 9]
        #expect(ListingRenderer.top(0, of: values.indices, by: values).isEmpty)
        #expect(Set(ListingRenderer.top(2, of: values.indices, by: values)) == [1, 6])
        #expect(Set(ListingRenderer.top(3, of: values.indices, by: values)) == [1, 6, 2, 3, 5])
        #expect(Set(ListingRenderer.top(7, of: values.indices, by: values)) == Set(values.indices))
    }
}
