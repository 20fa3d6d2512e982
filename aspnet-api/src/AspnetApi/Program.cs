using AspnetApi;
using AspnetApi.Data;
using AspnetApi.Endpoints;
using AspnetApi.GraphQL;
using AspnetApi.Http;

var builder = WebApplication.CreateBuilder(args);
builder.ConfigureServer();
builder.ConfigureQuietLogging();
builder.ConfigureJson();
var driver = DatabaseDriver.FromEnvironment();
builder.Services.AddForumData(DatabaseSettings.FromEnvironment(), driver);
builder.Services.AddForumGraphQL(GraphQLLimitSettings.FromEnvironment());

var app = builder.Build();
app.Services.InitializeForumSchema();
app.UseKeepAliveHeaders();
app.UseProblemsForErrors();

app.MapHealthEndpoints();
app.MapCommentEndpoints();
app.MapUserEndpoints();
app.MapGraphQLEndpoints();

app.Lifetime.ApplicationStarted.Register(() => LoadedReport.Print(driver));
app.Run();
