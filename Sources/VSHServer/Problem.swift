import Foundation
public import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import VSHAccounts
import VSHCore
import VSHEngine
import VSHPhoto

/// An error the service answers with: an RFC 9457 problem (`application/problem+json`).
public struct Problem: Error, Sendable {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// A short, fixed summary of the kind of problem.
    public var title: String
    /// What is wrong with this request, in words a client can show.
    public var detail: String
    /// Seconds to wait before trying again (429, 503).
    public var retryAfterSeconds: Int?
    /// Every problem of a document, `[{pointer, detail}]` (a hunt file's 422).
    var errors: [JSONValue]?

    /// A problem from its parts.
    public init(
        _ status: HTTPResponse.Status, _ title: String, _ detail: String, retryAfterSeconds: Int? = nil
    ) {
        self.status = status
        self.title = title
        self.detail = detail
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// The problem a library error is for the client; unknown errors are 500 without internals.
    static func from(_ error: any Error) -> Problem {
        switch error {
        case let problem as Problem: return problem
        case let error as LeagueError:
            switch error {
            case .unknownPlayer, .unknownPlayerID, .unknownHunt, .unknownCheckIn:
                return Problem(.notFound, "Not found", "\(error)")
            case .nameTaken, .nameLooksLike, .teamNameTaken:
                return Problem(.conflict, "Name taken", "\(error)")
            case .checkInState, .overturned: return Problem(.conflict, "Conflict", "\(error)")
            case .invalidEmail, .missingReason, .reasonTooLong, .overturnNeedsReason:
                return Problem(.unprocessableContent, "Invalid", "\(error)")
            }
        case let error as ReviewRecheckError:
            // The rules, run again now, refuse the approval: the moderator may override.
            return Problem(
                .conflict, "Fails the rules now",
                "\(error) (approve with \"override\": true to accept it anyway)")
        case let error as PlayerNameError: return Problem(.unprocessableContent, "Invalid name", "\(error)")
        case let error as PasswordError: return Problem(.unprocessableContent, "Invalid password", "\(error)")
        case let error as SubmissionError:
            if case .noPosition = error { return Problem(.unprocessableContent, "No position", "\(error)") }
            return Problem(.unprocessableContent, "Invalid", "\(error)")
        case let error as PhotoError:
            if case .tooLarge = error { return Problem(.contentTooLarge, "Too large", error.reason) }
            return Problem(.unprocessableContent, "Unreadable photo", error.reason)
        case let error as HTTPError:
            let title = error.status.reasonPhrase
            return Problem(error.status, title, error.body ?? title)
        case let error as any ClassifiedError:
            return Problem(kind: error.errorKind)
        default:
            return Problem(.internalServerError, "Internal error", "something went wrong on the server")
        }
    }

    /// The server's one table from an error's kind to an HTTP status, for the errors the cases
    /// above do not answer by their type. Invalid data that reaches here is the server's own (a
    /// damaged database, a refused write), never the request's: a 500, as any other failure.
    init(kind: ErrorKind) {
        switch kind {
        case .busy:
            self.init(.serviceUnavailable, "Busy", "the database is busy; try again", retryAfterSeconds: 1)
        case .storageFailure:
            // A full disk or a read-only database: nothing was recorded; the operator must act.
            self.init(
                .serviceUnavailable, "Cannot store", "the server cannot store anything now; try again later",
                retryAfterSeconds: 60)
        case .invalidRequest, .invalidData, .unavailableInput, .internalFailure:
            self.init(.internalServerError, "Internal error", "something went wrong on the server")
        }
    }

    /// `{type, title, status, detail}`, and `errors` when there are several.
    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("type", .string("about:blank")), ("title", .string(title)), ("status", .int(status.code)),
            ("detail", .string(detail)),
        ]
        if let errors { members.append(("errors", .array(errors))) }
        return .object(JSONObject(members))
    }
}

/// Turns every error thrown by a route (and the router's own 404 and 405) into one problem response.
extension Problem {
    /// The problem as an `application/problem+json` response (with `Retry-After` when it has one).
    var response: Response {
        var headers: HTTPFields = [.contentType: "application/problem+json"]
        if let seconds = retryAfterSeconds { headers[.retryAfter] = String(seconds) }
        return Response(
            status: status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: json.compactText)))
    }
}

struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            let problem = Problem.from(error)
            if problem.status == .internalServerError {
                // The type only: a message may hold a player's data.
                context.logger.error("internal error", metadata: ["error": "\(type(of: error))"])
            }
            return problem.response
        }
    }
}
