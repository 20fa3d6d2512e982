using System.Globalization;
using AspnetApi.Data;
using GraphQL.Types;

namespace AspnetApi.GraphQL;

/// <summary>type User { id: ID! name: String! email: String! phone: String! }</summary>
public sealed class UserType : ObjectGraphType<User>
{
    public UserType()
    {
        Name = "User";
        Field<NonNullGraphType<IdGraphType>>("id").Resolve(ctx => ctx.Source.Id.ToString(CultureInfo.InvariantCulture));
        Field<NonNullGraphType<StringGraphType>>("name").Resolve(ctx => ctx.Source.Name);
        Field<NonNullGraphType<StringGraphType>>("email").Resolve(ctx => ctx.Source.Email);
        Field<NonNullGraphType<StringGraphType>>("phone").Resolve(ctx => ctx.Source.Phone);
    }
}
