using AspnetApi.Data;
using GraphQL.DataLoader;
#if !NET9_0_OR_GREATER
// System.Threading.Lock is new in .NET 9; on .NET 8 (variant net8) `lock` takes a plain object's monitor.
using Lock = object;
#endif

namespace AspnetApi.GraphQL;

/// <summary>
/// The users that one request's comments need, fetched with one statement. GraphQL.NET's execution
/// strategy resolves every field of a level (both aliased roots included) before it awaits any
/// <see cref="IDataLoaderResult"/>, so the first awaited result finds every id of the level here.
/// (GraphQL.NET's ready-made loaders live in the separate GraphQL.DataLoader package, which the
/// NuGet copy lacks; the dispatch itself is the GraphQL package's.)
/// </summary>
public sealed class UserBatch(ForumDatabase db)
{
    readonly Lock gate = new();
    readonly HashSet<int> pending = [];
    readonly Dictionary<int, Task<Dictionary<int, User>>> fetches = [];

    public IDataLoaderResult<User?> Load(int userId)
    {
        lock (gate)
            pending.Add(userId);
        return new Result(this, userId);
    }

    Task<Dictionary<int, User>> FetchFor(int userId)
    {
        lock (gate)
        {
            if (fetches.TryGetValue(userId, out var fetch))
                return fetch;
            var ids = pending.ToArray();
            pending.Clear();
            fetch = db.UsersByIds(ids);
            foreach (var id in ids)
                fetches[id] = fetch;
            return fetch;
        }
    }

    sealed class Result(UserBatch batch, int userId) : IDataLoaderResult<User?>
    {
        public async Task<User?> GetResultAsync(CancellationToken cancellationToken = default) =>
            (await batch.FetchFor(userId)).GetValueOrDefault(userId);

        async Task<object?> IDataLoaderResult.GetResultAsync(CancellationToken cancellationToken) =>
            await GetResultAsync(cancellationToken);
    }
}
