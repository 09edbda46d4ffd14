import CKModel
import CKStorage

/// `ck doctor`: checks a store's files without changing them; with `repair`, moves bad data aside into
/// `<store>/lost+found/<time>/` (never deleting it) and rewrites what can be rebuilt. The checks are the storage
/// layer's (`StoreCheck`): they read files and need no CloudKit rule beyond the files' own formats.
public enum StoreDoctor {
    /// What is wrong with `store` (and, with `repair`, what was fixed). Developer work, through the store's door.
    public static func examine(_ store: CKStore, repair: Bool) throws(CKError) -> [DoctorFinding] {
        try store.perform(repair ? .doctorRepair : .doctorCheck, container: nil) { () throws(CKError) in
            try StoreCheck.examine(store.files, repair: repair, now: store.now, indexEnabled: store.indexEnabled,
                                   faultRules: { (file) throws(CKError) in _ = try FaultBook.read(file) })
        }
    }
}
