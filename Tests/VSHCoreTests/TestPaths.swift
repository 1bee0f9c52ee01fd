import Foundation
import VSHTestSupport

enum TestPaths {
    static let strip = TestSupport.packageRoot.appendingPathComponent("hunts/strip-classics.geojson")
}
