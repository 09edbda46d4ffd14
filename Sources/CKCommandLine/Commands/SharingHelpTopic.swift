import CKCore

/// `ck help sharing`: CKShare, participants and the shared database on one page.
enum SharingHelpTopic {
    static func text() -> String {
        """
        SHARING

        A share (CKShare) is a record of type cloudkit.share in a custom zone of its
        owner's private database. It shares a root record and every record below it
        through parent references (custom references are ignored), or a whole zone
        (record name cloudkit.zoneshare; the zone needs --zone-wide-sharing).

          ck -z Lists share create list-1 --title Groceries   share list-1 and its children
          ck -z Lists share invite list-1 bob --permission readWrite
          ck -z Lists share show list-1                        URL, participants, states
          ck --as bob share accept <url>                       bob joins
          ck --as bob --db shared -z Lists query Item          bob reads the shared items
          ck --as bob share leave <url>                        bob leaves
          ck -z Lists share delete list-1                      alice stops sharing

        Rules, as CloudKit has them
          A record takes part in one share only: sharing a record whose parent chain
          or a child is already shared answers alreadyShared (exit 4).
          Shares live in custom zones of the private database: in the public
          database or the default zone they answer badDatabase (exit 7); so does
          creating a zone in the shared database.
          At most \(Share.maxParticipants) participants, the owner included (tooManyParticipants).
          Participants are invited only while the public permission is none;
          changing it removes pending participants, and none removes public ones.
          An invited user is pending until it accepts the URL; anyone may join a
          share whose public permission is readOnly or readWrite, as a public user.
          Anyone else is refused (permissionFailure; participantMayNeedVerification
          while the share has invitations nobody accepted yet).

        The shared database
          After accepting, the participant's shared database has a zone named as the
          owner's, with the owner's ownerRecordName, holding only the shared records:
          a view of the owner's data, never a copy. readOnly participants read;
          readWrite ones save and delete, and add records under a shared parent.
          Only the owner deletes a hierarchy's root. Writes count against the
          owner's quota. A zone name two owners share is named -z NAME:OWNER.
          Queries there name a zone; query subscriptions are refused.
          Change feeds ('ck changes', 'ck --db shared sync DEVICE') show the share's
          records from acceptance on; the zone is reported deleted when the
          participant is removed or leaves, or the share or its root is deleted.

        Share URLs have CloudKit's form, https://www.icloud.com/share/<shortGUID>;
        ck resolves them offline. A root keeps its URL when it is shared again.
        See docs/sharing.md.
        """
    }
}
