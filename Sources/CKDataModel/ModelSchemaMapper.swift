import CKModel
import CKSchema

/// Which development schema to generate from a model.
public enum ModelSchemaMode: String, Sendable, CaseIterable {
    /// What syncing every attribute once creates just in time (no assets, no move receipts).
    case jit
    /// What `initializeCloudKitSchema` creates: also `CD_<attr>_ckAsset` companions and `CD_moveReceipt`.
    case initialize
}

/// Maps a model to the CloudKit schema NSPersistentCloudKitContainer mirrors it to (reference swiftdata-cloudkit.md §2–§7).
public enum ModelSchemaMapper {
    /// The record type of many-to-many links.
    public static let manyToManyType = "CDMR"

    /// The development schema of the synced entities: `CD_<root entity>` types (and `CDMR` for many-to-many links),
    /// with the indexes and grants a development schema gets. `Users` is added by the printer.
    public static func schema(_ model: DataModel, synced: Set<String>, mode: ModelSchemaMode) -> Schema {
        var schema = Schema()
        var needsLinks = false
        for e in model.entities where synced.contains(e.name) {
            let typeName = "CD_" + model.root(of: e.name)
            var t = schema.recordTypes[typeName] ?? RecordTypeSchema(name: typeName, grants: RecordTypeSchema.defaultGrants)
            t.fields["CD_entityName"] = developmentField(.string)
            if mode == .initialize {
                t.fields["CD_moveReceipt"] = developmentField(.bytes)
                t.fields["CD_moveReceipt_ckAsset"] = developmentField(.asset)
            }
            for a in e.attributes {
                guard let base = a.kind.fieldBase else { continue }
                var f = developmentField(base)
                if a.isEncrypted {
                    // Encrypted values are stored in encryptedValues; the server can't index them.
                    f = FieldSchema(type: FieldType(base), encrypted: true)
                }
                t.fields["CD_" + a.name] = f
                if mode == .initialize && a.kind.hasAssetCompanion {
                    t.fields["CD_" + a.name + "_ckAsset"] = developmentField(.asset)
                }
            }
            for r in e.relationships where model.entity(r.destination) != nil {
                if !r.isToMany {
                    // A to-one relationship is the related record's recordName, never a CKReference.
                    t.fields["CD_" + r.name] = developmentField(.string)
                } else if let inverse = model.inverse(of: r, in: e), inverse.isToMany, synced.contains(r.destination) {
                    needsLinks = true
                }
            }
            schema.recordTypes[typeName] = t
        }
        if needsLinks {
            var links = RecordTypeSchema(name: manyToManyType, grants: RecordTypeSchema.defaultGrants)
            for f in ["CD_entityNames", "CD_recordNames", "CD_relationships"] { links.fields[f] = developmentField(.string) }
            schema.recordTypes[manyToManyType] = links
        }
        return schema
    }

    /// A field as development creates it (reference §7), as a just-in-time save makes it.
    package static func developmentField(_ base: FieldType.Base) -> FieldSchema { Schema.justInTimeField(FieldType(base)) }
}
