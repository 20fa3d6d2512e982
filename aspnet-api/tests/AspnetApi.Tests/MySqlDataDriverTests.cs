using System.Net;

namespace AspnetApi.Tests;

/// <summary>The `mysql-data` variant: the study's driver behind the same code path, the same bytes.</summary>
[Collection(MySqlDataAppCollection.Name)]
public sealed class MySqlDataDriverTests(RunningAppOnMySqlData app)
{
    [Fact]
    public void StartupLine_NamesTheDriverActuallyLoaded() =>
        Assert.Contains("\"driver\":\"MySql.Data\",\"driver_version\":\"26.10.0", app.Output);

    [Fact]
    public async Task Rest_SameBytes()
    {
        var reply = await Reply.Get(app.Http, "/rest/comment/1");
        Assert.Equal(HttpStatusCode.OK, reply.Status);
        Assert.Equal("""{"id":1,"threadId":1,"userId":1,"body":"praesentium cena alii","dateMade":"2021-03-04","dateLastUpdated":"2021-08-14"}""", reply.Body);
    }

    [Fact]
    public async Task GraphQL_BatchesUsersInOneStatement()
    {
        Reply? reply = null;
        var selects = await ServerCounters.SelectsDuring(async () =>
            reply = await Reply.GraphQL(app.Http, new { query = "{ commentsByLimit(limit: 50) { id user { id } } }" }));
        Assert.Equal(HttpStatusCode.OK, reply!.Status);
        Assert.Equal(2, selects);
    }
}
