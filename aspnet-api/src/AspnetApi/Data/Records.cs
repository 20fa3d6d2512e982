namespace AspnetApi.Data;

/// <summary>A comment as the contract writes it: dates are YYYY-MM-DD strings or null.</summary>
public record Comment(int Id, int ThreadId, int UserId, string Body, string? DateMade, string? DateLastUpdated);

public record User(int Id, string Name, string Email, string Phone);

/// <summary>A comment from the join: the same keys, then the joined user's columns.</summary>
public record CommentWithUser(
    int Id, int ThreadId, int UserId, string Body, string? DateMade, string? DateLastUpdated, User User);
