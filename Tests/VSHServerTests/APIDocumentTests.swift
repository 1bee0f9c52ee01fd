import Foundation
import HTTPTypes
import Testing
import VSHServer
import VSHTestSupport

/// docs/api.md, the HTTP contract as users read it, lists exactly the routes the service answers
/// (`Endpoint.all`, the list the router and `/openapi.json` are made from).
@Suite struct APIDocumentTests {
    @Test func theAPIPageListsEveryRouteAndNoOther() throws {
        let page = try String(
            contentsOf: TestSupport.packageRoot.appendingPathComponent("docs/api.md"), encoding: .utf8)
        // The routes table: "| METHOD | `/path`[, `/path`] | who | what |".
        var documented = Set<String>()
        for line in page.split(separator: "\n") {
            guard let row = line.wholeMatch(of: #/\| (GET|POST|PUT|PATCH|DELETE) \| ([^|]+) \|.*/#) else {
                continue
            }
            for path in row.2.matches(of: #/`([^`]+)`/#) {
                documented.insert("\(row.1) \(path.1)")
            }
        }
        let served = Set(Endpoint.all.map { "\($0.method.rawValue) \($0.path)" })
        #expect(served.count > 20)
        #expect(
            served.subtracting(documented).isEmpty,
            "served but not in docs/api.md: \(served.subtracting(documented).sorted())")
        #expect(
            documented.subtracting(served).isEmpty,
            "in docs/api.md but not served: \(documented.subtracting(served).sorted())")
    }
}
