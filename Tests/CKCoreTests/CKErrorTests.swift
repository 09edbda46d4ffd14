import Testing
import CKCore
@testable import CKModel
@testable import CKSQLite

@Suite struct CKErrorTests {
    /// The name table follows the enum: every code's name is its Swift case name, and reads back as the code.
    @Test func codeNamesAreTheCaseNames() {
        #expect(CKError.Code.names.count == CKError.Code.allCases.count)
        for c in CKError.Code.allCases {
            #expect(c.name == String(describing: c))
            #expect(CKError.Code(name: c.name) == c)
        }
    }
}
