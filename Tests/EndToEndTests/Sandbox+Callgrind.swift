import Testing

extension Sandbox {
    /// Runs `ck arguments` under callgrind (`valgrind`) and returns what it printed with the instructions it ran: a
    /// count, not a time, so a cost test holds on a loaded machine.
    func callgrind(_ arguments: [String], ck: String, valgrind: String,
                   env: [String: String] = [:]) throws -> (result: Result, instructions: Double) {
        let r = try run(["--tool=callgrind", "--callgrind-out-file=/dev/null", ck] + arguments, program: valgrind, env: env)
        let found = r.stderr.firstMatch(of: /Collected : (\d+)/).flatMap { Double($0.1) }
        return (r, try #require(found, "callgrind printed no count: \(r.stderr)"))
    }
}
