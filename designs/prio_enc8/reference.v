// Reference for prio_enc8: casez from the top request down.
module prio_enc8 (
    input      [7:0] req,
    output reg [2:0] idx,
    output           valid
);
    always @* begin
        casez (req)
            8'b1???????: idx = 3'd7;
            8'b01??????: idx = 3'd6;
            8'b001?????: idx = 3'd5;
            8'b0001????: idx = 3'd4;
            8'b00001???: idx = 3'd3;
            8'b000001??: idx = 3'd2;
            8'b0000001?: idx = 3'd1;
            default:     idx = 3'd0;
        endcase
    end
    assign valid = |req;
endmodule
