import Foundation
import CKCore
@testable import CKModel
@testable import CKSQLite
@testable import CKSchema
@testable import CKDataModel

/// Model sources written for the tests, and a folder to read them from.
final class ModelFolder {
    let dir: String

    init(_ files: [String: String]) throws {
        dir = NSTemporaryDirectory() + "ck-model-\(UUID().uuidString)"
        for (name, text) in files {
            let path = dir + "/" + name
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: dir) }

    /// Reads the paths (relative to the folder; all of it by default) as `ck model` does.
    func load(_ paths: [String] = ["."]) -> DataModel {
        DataModel.load(paths: paths, workingDirectory: dir)
    }

    /// The findings `ck model check` reports.
    func check(_ paths: [String] = ["."], models: [String]? = nil) throws -> [ModelFinding] {
        let m = load(paths)
        return ModelChecker.check(m, synced: try m.syncedEntities(models: models))
    }

    /// The generated .ckdb text.
    func schema(_ paths: [String] = ["."], models: [String]? = nil, mode: ModelSchemaMode = .jit) throws -> String {
        let m = load(paths)
        return CKDB.print(ModelSchemaMapper.schema(m, synced: try m.syncedEntities(models: models), mode: mode))
    }
}

extension Array where Element == ModelFinding {
    /// `rule subject line:column` of each finding, for comparing with a list written by hand.
    var brief: [String] { map { "\($0.severity.rawValue) \($0.rule) \($0.subject) \($0.location.line):\($0.location.column)" } }
}

/// The blocks every generated schema shares.
enum ModelExpected {
    static let systemFields = """
            "___createTime" TIMESTAMP,
            "___createdBy"  REFERENCE,
            "___etag"       STRING,
            "___modTime"    TIMESTAMP,
            "___modifiedBy" REFERENCE,
            "___recordID"   REFERENCE,
    """
    static let grants = """
            GRANT WRITE TO "_creator",
            GRANT CREATE TO "_icloud",
            GRANT READ TO "_world"
        );
    """
}
