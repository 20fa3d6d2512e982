namespace AspnetApi.Data;

/// <summary>What GraphQL's Comment type reads, whether the row came with its user or not.</summary>
public interface IComment
{
    int Id { get; }
    int ThreadId { get; }
    int UserId { get; }
    string Body { get; }
    string? DateMade { get; }
    string? DateLastUpdated { get; }
}

/// <summary>A comment as the contract writes it: dates are YYYY-MM-DD strings or null.</summary>
public record Comment(int Id, int ThreadId, int UserId, string Body, string? DateMade, string? DateLastUpdated)
    : IComment;

public record User(int Id, string Name, string Email, string Phone);

/// <summary>A comment from the join: the same keys, then the joined user's columns.</summary>
public record CommentWithUser(
    int Id, int ThreadId, int UserId, string Body, string? DateMade, string? DateLastUpdated, User User) : IComment;
