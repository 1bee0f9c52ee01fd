import Foundation
import Testing
import VSHCore

/// Stands in for GEOS in rule tests: every geofence is valid with the given area.
/// (The SpatiaLite inspector has its own tests against a real database.)
struct FixedInspector: GeofenceInspector {
    var reason: String? = nil
    var area = 1_000.0
    func inspect(_ geofence: Geofence) throws -> GeofenceInspection {
        GeofenceInspection(invalidReason: reason, areaSquareMeters: area)
    }
}

/// A valid hunt file as text, with hooks to break it.
func huntText(
    id: String = "test-hunt", extraHunt: String = "", stopID: String = "the-stop",
    properties: String = #""name": "The Stop", "points": 10"#,
    ring: String = "[[-115.17, 36.08], [-115.16, 36.08], [-115.16, 36.09], [-115.17, 36.08]]",
    geometryType: String = "Polygon"
) -> String {
    let coordinates = geometryType == "MultiPolygon" ? "[[\(ring)]]" : "[\(ring)]"
    return """
        {"type": "FeatureCollection",
         "hunt": {"id": "\(id)", "name": "Test Hunt"\(extraHunt)},
         "features": [
           {"type": "Feature", "id": "\(stopID)", "properties": {\(properties)},
            "geometry": {"type": "\(geometryType)", "coordinates": \(coordinates)}}]}
        """
}

func read(_ text: String, inspector: FixedInspector = FixedInspector()) -> Result<Hunt, HuntFileErrors> {
    HuntFile.read(
        Array(text.utf8), file: "hunts/test-hunt.geojson", expectedID: "test-hunt", inspector: inspector)
}

func messages(_ text: String, inspector: FixedInspector = FixedInspector()) -> [String] {
    switch read(text, inspector: inspector) {
    case .success: return []
    case .failure(let errors): return errors.errors.map(\.description)
    }
}

@Suite struct HuntFileTests {
    @Test func readsAValidHuntWithDefaults() throws {
        let hunt = try read(
            huntText(
                extraHunt:
                    #", "difficulty": "hard", "bonus_points": 100, "ordered": true, "timezone": "America/Los_Angeles", "starts_at": "2026-12-31T18:00:00-08:00""#
            )
        ).get()
        #expect(hunt.id == "test-hunt")
        #expect(hunt.difficulty == .hard)
        #expect(hunt.bonusPoints == 100)
        #expect(hunt.ordered)
        #expect(hunt.timeZone == "America/Los_Angeles")
        #expect(hunt.startsAt == Date(timeIntervalSince1970: 1_798_768_800))
        #expect(hunt.maxAccuracyMeters == 50)
        #expect(hunt.stops.count == 1)
        #expect(hunt.stops[0].points == 10)
        #expect(
            hunt.stops[0].geofence.polygons[0].shell.positions[1] == Coordinate(unchecked: 36.08, -115.16))
        #expect(hunt.totalPoints == 110)
    }

    @Test func namesFileStopAndProblemForAnUnclosedRing() {
        #expect(
            messages(
                huntText(ring: "[[-115.17, 36.08], [-115.16, 36.08], [-115.16, 36.09], [-115.17, 36.09]]"))
                == [
                    #"hunts/test-hunt.geojson: stop "the-stop": ring 0 is not closed (its last position must repeat the first)"#
                ])
    }

    @Test func refusesOutOfRangeAndShortRings() {
        #expect(
            messages(huntText(ring: "[[-115.17, 200], [-115.16, 36.08], [-115.16, 36.09], [-115.17, 200]]"))
                .first?.contains("latitude 200.0 is out of range") == true)
        #expect(
            messages(
                huntText(ring: "[[-215.17, 36.08], [-115.16, 36.08], [-115.16, 36.09], [-215.17, 36.08]]")
            ).first?.contains("longitude -215.17 is out of range") == true)
        #expect(
            messages(huntText(ring: "[[-115.17, 36.08], [-115.16, 36.08], [-115.17, 36.08]]")) == [
                #"hunts/test-hunt.geojson: stop "the-stop": ring 0 has 3 positions; a closed ring needs at least 4"#
            ])
    }

    @Test func reportsWhatGEOSSaysAndAreasOutOfRange() {
        #expect(
            messages(
                huntText(), inspector: FixedInspector(reason: "self-intersection at longitude 1, latitude 2"))
                == [
                    #"hunts/test-hunt.geojson: stop "the-stop": invalid polygon: self-intersection at longitude 1, latitude 2"#
                ])
        #expect(
            messages(huntText(), inspector: FixedInspector(area: 0.2)).first?.contains(
                "area 0.2 m² is outside") == true)
        #expect(
            messages(huntText(), inspector: FixedInspector(area: 9e9)).first?.contains(
                "is outside the 1...25000000 m²") == true)
    }

    /// `late_grace_s` and `proof` (issue 14): read, checked, written only when not the default.
    @Test func lateGraceAndProofAreReadCheckedAndWritten() throws {
        let hunt = try read(huntText(extraHunt: #", "late_grace_s": 900, "proof": "photo""#)).get()
        #expect(hunt.lateGraceSeconds == 900 && hunt.proof == .photo)
        let written = HuntFile.text(of: hunt)
        #expect(written.contains(#""late_grace_s": 900"#) && written.contains(#""proof": "photo""#))
        #expect(try read(written).get() == hunt)
        let plain = try read(huntText()).get()
        #expect(plain.lateGraceSeconds == 0 && plain.proof == .any)
        #expect(
            !HuntFile.text(of: plain).contains("late_grace_s") && !HuntFile.text(of: plain).contains("proof"))
        #expect(
            messages(huntText(extraHunt: #", "proof": "selfie""#)) == [
                #"hunts/test-hunt.geojson: "proof" must be "any", "photo" or a list such as ["photo", "code"]"#
            ])
        #expect(messages(huntText(extraHunt: #", "late_grace_s": -1"#)).count == 1)
    }

    /// `max_speed_kmh`, `min_duration_s` and a stop's own `proof` (issue 32): read, checked and
    /// written; the pace is always written (the organiser's stated choice), the others when set.
    @Test func paceLeastDurationAndStopProofAreReadCheckedAndWritten() throws {
        let hunt = try read(
            huntText(
                extraHunt: #", "max_speed_kmh": 60, "min_duration_s": 2700"#,
                properties: #""name": "The Stop", "points": 10, "proof": ["photo", "fix"]"#)
        ).get()
        #expect(
            hunt.maxSpeedKmh == 60 && hunt.minDurationSeconds == 2700
                && hunt.stops[0].proof == [.photo, .fix])
        let written = HuntFile.text(of: hunt)
        #expect(written.contains(#""max_speed_kmh": 60"#) && written.contains(#""min_duration_s": 2700"#))
        #expect(try read(written).get() == hunt)
        let plain = try read(huntText()).get()
        #expect(plain.maxSpeedKmh == 12 && plain.minDurationSeconds == nil && plain.stops[0].proof.isEmpty)
        #expect(HuntFile.text(of: plain).contains(#""max_speed_kmh": 12"#))
        #expect(!HuntFile.text(of: plain).contains("min_duration_s"))
        #expect(!HuntFile.text(of: plain).contains(#""proof""#))
        let slow = messages(huntText(extraHunt: #", "max_speed_kmh": 0.5"#))
        #expect(slow.count == 1 && slow.first?.contains(#""max_speed_kmh" is 0.5"#) == true)
        #expect(messages(huntText(extraHunt: #", "max_speed_kmh": 900"#)).count == 1)
        #expect(messages(huntText(extraHunt: #", "min_duration_s": "1h""#)).count == 1)
        #expect(
            messages(huntText(properties: #""name": "The Stop", "points": 10, "proof": ["qr"]"#)) == [
                #"hunts/test-hunt.geojson: stop "the-stop": "proof" lists what a check-in must bring: "photo", "fix", "code", "answer""#
            ])
        #expect(
            messages(huntText(properties: #""name": "The Stop", "points": 10, "proof": "photo""#)).count == 1)
    }

    @Test func featuredStopsAndSponsorLinesAreReadCheckedAndWritten() throws {
        let hunt = try read(
            huntText(
                properties: #""name": "The Stop", "points": 10, "featured": true, "sponsor": "Gold & Co""#)
        ).get()
        #expect(hunt.stops[0].featured && hunt.stops[0].sponsor == "Gold & Co")
        let written = HuntFile.text(of: hunt)
        #expect(written.contains(#""featured": true"#) && written.contains(#""sponsor": "Gold & Co""#))
        #expect(try read(written).get() == hunt)
        // A stop without them is written as before: no new keys.
        let plain = try read(huntText()).get()
        #expect(!plain.stops[0].featured && plain.stops[0].sponsor == nil)
        #expect(
            !HuntFile.text(of: plain).contains("featured") && !HuntFile.text(of: plain).contains("sponsor"))
        #expect(
            messages(huntText(properties: #""name": "X", "points": 1, "featured": "yes""#)) == [
                #"hunts/test-hunt.geojson: stop "the-stop": "featured" must be true or false, not a string"#
            ])
        let long = String(repeating: "a", count: Stop.maxSponsorLength + 1)
        #expect(
            messages(huntText(properties: #""name": "X", "points": 1, "sponsor": "\#(long)""#)).first?
                .contains(
                    "sponsor") == true)
    }

    /// A hunt's and a stop's names in other languages (`translations`): read, checked, written
    /// back unchanged, and absent from hunts that give none.
    @Test func translationsAreReadCheckedAndWritten() throws {
        let hunt = try read(
            huntText(
                extraHunt:
                    #", "translations": {"es": {"name": "Búsqueda", "description": "Dos paradas."}, "pt-BR": {"name": "Caça"}}"#,
                properties:
                    #""name": "The Stop", "points": 10, "translations": {"es": {"name": "La parada"}}"#)
        ).get()
        #expect(hunt.translations["es"] == Translation(name: "Búsqueda", description: "Dos paradas."))
        #expect(hunt.translations["pt-BR"] == Translation(name: "Caça"))
        #expect(hunt.stops[0].translations == ["es": Translation(name: "La parada")])
        let written = HuntFile.text(of: hunt)
        #expect(written.contains(#""translations""#))
        #expect(try read(written).get() == hunt)
        #expect(
            HuntFile.translations(stored: HuntFile.translationsJSON(hunt.translations).compactText)
                == hunt.translations)
        #expect(!HuntFile.text(of: try read(huntText()).get()).contains("translations"))
        #expect(
            messages(huntText(extraHunt: #", "translations": {"Spanish": {"name": "X"}}"#)) == [
                #"hunts/test-hunt.geojson: "translations" names "Spanish", not a language tag such as es or pt-BR"#
            ])
        #expect(
            messages(
                huntText(properties: #""name": "X", "points": 1, "translations": {"es": {"title": "X"}}"#))
                == [
                    #"hunts/test-hunt.geojson: stop "the-stop": unknown field "translations.es.title" (a typo?)"#,
                    #"hunts/test-hunt.geojson: stop "the-stop": missing required field "translations.es.name""#,
                ])
        #expect(
            messages(huntText(extraHunt: #", "translations": {"es": {"name": " "}}"#)) == [
                #"hunts/test-hunt.geojson: "translations.es.name" is empty"#
            ])
        #expect(messages(huntText(extraHunt: #", "translations": ["es"]"#)).count == 1)
    }

    @Test func reportsWrongTypesAndMissingFields() {
        #expect(
            messages(huntText(properties: #""name": "X", "points": "ten""#)) == [
                #"hunts/test-hunt.geojson: stop "the-stop": "points" must be a whole number, not a string"#
            ])
        #expect(
            messages(huntText(properties: #""name": "X", "points": 2.5"#)).first?.contains(
                "must be a whole number, not 2.5") == true)
        #expect(
            messages(huntText(properties: #""points": 5"#)) == [
                #"hunts/test-hunt.geojson: stop "the-stop": missing required field "name""#
            ])
        #expect(
            messages(huntText(extraHunt: #", "ordered": "yes""#)) == [
                #"hunts/test-hunt.geojson: "ordered" must be true or false, not a string"#
            ])
        #expect(
            messages(huntText(extraHunt: #", "difficulty": "insane""#)).first?.contains(
                #""difficulty" is "insane"; use one of easy, medium, hard, expert"#) == true)
        #expect(
            messages(huntText(extraHunt: #", "timezone": "Vegas/Strip""#)).first?.contains(
                "not an IANA time zone") == true)
        #expect(
            messages(huntText(extraHunt: #", "bonus_point": 5"#)) == [
                #"hunts/test-hunt.geojson: unknown field "hunt.bonus_point" (a typo?)"#
            ])
        #expect(
            messages(huntText(geometryType: "LineString")).first?.contains(
                "a stop is a Polygon or a MultiPolygon") == true)
    }

    @Test func checksIdsAgainstTheFileNameAndTheSlugRule() {
        #expect(
            messages(huntText(id: "other-hunt")) == [
                #"hunts/test-hunt.geojson: hunt id "other-hunt" does not match the file name (expected "test-hunt")"#
            ])
        #expect(
            messages(huntText(stopID: "Bad Stop")).first?.contains(#"is "Bad Stop"; use lower-case letters"#)
                == true)
        #expect(
            Slug.isValid("strip-classics") && !Slug.isValid("../etc") && !Slug.isValid("")
                && !Slug.isValid("-a"))
    }

    @Test func reportsMalformedJSONWithItsPosition() {
        #expect(
            messages("{\"type\": \"FeatureCollection\",\n \"hunt\": {]") == [
                #"hunts/test-hunt.geojson: malformed JSON at line 2, column 11: expected a quoted key"#
            ])
        #expect(
            messages(#"{"type": "Feature"}"#) == ["hunts/test-hunt.geojson: not a GeoJSON FeatureCollection"])
    }

    @Test func keepsMultiPolygonsAndHoles() throws {
        let hole = "[[-115.169, 36.081], [-115.169, 36.082], [-115.168, 36.082], [-115.169, 36.081]]"
        let text = huntText(
            ring: "[[-115.17, 36.08], [-115.16, 36.08], [-115.16, 36.09], [-115.17, 36.08]], \(hole)",
            geometryType: "MultiPolygon")
        let stop = try read(text).get().stops[0]
        #expect(stop.geofence.kind == .multiPolygon)
        #expect(stop.geofence.polygons[0].holes.count == 1)
        #expect(stop.geofence.wkt.hasPrefix("MULTIPOLYGON(((-115.17 36.08,-115.16 36.08,"))
        #expect(stop.geofence.wkt.contains("),(-115.169 36.081,"))
    }

    @Test func catalogRefusesAStopIdUsedByTwoHunts() {
        let a = HuntCatalog.Source(
            path: "hunts/a.geojson", expectedID: "a", bytes: Array(huntText(id: "a").utf8))
        let b = HuntCatalog.Source(
            path: "hunts/b.geojson", expectedID: "b", bytes: Array(huntText(id: "b").utf8))
        switch HuntCatalog.build([a, b], inspector: FixedInspector()) {
        case .success: Issue.record("duplicate stop ids were accepted")
        case .failure(let errors):
            #expect(
                errors.description
                    == #"hunts/b.geojson: stop "the-stop": stop id "the-stop" is already used in hunts/a.geojson; stop ids are unique across all hunts"#
            )
        }
    }

    @Test func catalogListsEveryProblemOfEveryFile() {
        let a = HuntCatalog.Source(
            path: "hunts/a.geojson", expectedID: "a",
            bytes: Array(huntText(id: "a", properties: #""name": 3, "points": 1"#).utf8))
        let b = HuntCatalog.Source(path: "hunts/b.geojson", expectedID: "b", bytes: Array("nope".utf8))
        guard case .failure(let errors) = HuntCatalog.build([a, b], inspector: FixedInspector()) else {
            Issue.record("invalid files were accepted")
            return
        }
        #expect(errors.errors.map(\.file) == ["hunts/a.geojson", "hunts/b.geojson"])
    }
}
