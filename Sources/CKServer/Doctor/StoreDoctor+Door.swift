import CKModel

extension StoreDoctor {
    /// Checks every file of the store; with `repair`, moves bad data aside (`examineBody`). Developer work,
    /// through the store's door.
    public static func examine(_ store: CKStore, repair: Bool) throws(CKError) -> [DoctorFinding] {
        try store.perform(repair ? .doctorRepair : .doctorCheck, container: nil) { () throws(CKError) in
            try examineBody(store, repair: repair)
        }
    }
}
