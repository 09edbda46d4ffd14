import Testing
import CKFiles

/// `ParentDirectory.plainSplit` lets a walk take its parent straight from the directory cache only for a path
/// spelled as the cache spells its keys; any other spelling must go the long way (nil), where `.` and `..` are
/// refused and doubled slashes folded.
@Suite struct PlainPathSplitTests {
    @Test func plainPathsSplitAtTheirLastSlash() {
        #expect(ParentDirectory.plainSplit("/store/containers/iCloud.a/development/zones/Z.log")! == ("/store/containers/iCloud.a/development/zones", "Z.log"))
        #expect(ParentDirectory.plainSplit("/a/b")! == ("/a", "b"))
        #expect(ParentDirectory.plainSplit("/a/.hidden")! == ("/a", ".hidden"))
        #expect(ParentDirectory.plainSplit("/a/.../b")! == ("/a/...", "b"))
        #expect(ParentDirectory.plainSplit("/ä/é")! == ("/ä", "é"))
    }

    @Test func otherSpellingsGoTheLongWay() {
        for path in ["", "/", "a/b", "/a", "/a//b", "/a/b/", "/a/./b", "/a/../b", "/a/b/.", "/a/b/..", "//a/b", "/./b"] {
            #expect(ParentDirectory.plainSplit(path) == nil, "\(path)")
        }
    }
}
